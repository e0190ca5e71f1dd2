package org.fleetpipe.teltonika.bridge;

import java.util.concurrent.CountDownLatch;
import org.fleetpipe.teltonika.bridge.delivery.DeadLetterRedrive;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.sink.http.HttpSink;
import org.fleetpipe.teltonika.bridge.sink.kafka.KafkaSink;
import org.fleetpipe.teltonika.bridge.sink.mqtt.MqttSink;
import org.fleetpipe.teltonika.bridge.sink.postgres.PostgresSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Starts one bridge replica; SIGTERM finishes the batches in flight and exits 0. With
 * {@code --redrive}, sends the dead letters once instead, and exits.
 */
public final class BridgeMain {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeMain.class);

    private BridgeMain() {}

    public static void main(String[] args) throws Exception {
        BridgeCommand command = new BridgeCommand();
        CommandLine line = new CommandLine(command);
        BridgeSettings settings;
        try {
            CommandLine.ParseResult parsed = line.parseArgs(args);
            if (CommandLine.executeHelpRequest(parsed) != null) {
                System.exit(0);
                return;
            }
            settings = command.settings(System.getenv());
        } catch (CommandLine.ParameterException | IllegalArgumentException e) {
            System.err.println("bridge: " + e.getMessage());
            System.err.println("Try --help.");
            System.exit(2);
            return;
        }
        if (command.redrive) {
            try {
                // Its own MQTT client id: the replica's would make the broker drop the replica's connection.
                DeadLetterRedrive.Result result = BridgeRedrive.run(settings, sink(settings, "-redrive"));
                System.exit(result.refusedAgain() + result.malformed() == 0 ? 0 : 3);
            } catch (Exception e) {
                LOG.error("redrive failed: {}", e.toString());
                System.exit(1);
            }
            return;
        }
        Bridge bridge = new Bridge(settings, sink(settings));
        try {
            bridge.start();
        } catch (Exception e) {
            LOG.error("could not start: {}", e.toString());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("stop requested");
            try {
                bridge.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stopped.countDown();
            // A completed stop is a clean exit: 0, not the JVM's 143 after SIGTERM.
            Runtime.getRuntime().halt(0);
        }, "shutdown"));
        stopped.await();
    }

    static Sink sink(BridgeSettings settings) {
        return sink(settings, "");
    }

    /** The sink of the settings; {@code clientIdSuffix} ends the MQTT client id. */
    static Sink sink(BridgeSettings settings, String clientIdSuffix) {
        return switch (settings.sink()) {
            case KAFKA -> new KafkaSink(settings.kafka().bootstrapServers(), settings.kafka().topic(),
                    settings.kafka().properties());
            case HTTP -> new HttpSink(settings.http().url(), settings.http().timeout(), settings.http().headers());
            case MQTT -> new MqttSink(settings.mqtt().serverUri(), "teltonika-bridge-" + settings.consumer() + clientIdSuffix,
                    settings.mqtt().topicTemplate(), settings.mqtt().username(), settings.mqtt().password(),
                    settings.mqtt().maxInFlight(), settings.mqtt().timeout(), settings.mqtt().maxPayload(),
                    settings.mqtt().version());
            case POSTGRES -> new PostgresSink(settings.postgres().url(), settings.postgres().table(),
                    settings.postgres().user(), settings.postgres().password(),
                    "teltonika-bridge-" + settings.consumer() + clientIdSuffix);
        };
    }
}
