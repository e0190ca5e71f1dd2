package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintStream;

/** {@code java -jar reference-consumer.jar --group mine}: reads the telemetry stream and prints progress. */
public final class ReferenceConsumerMain {

    private ReferenceConsumerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs to completion; returns the exit code (0 done, 2 bad options, 1 Redis failed). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        ConsumerOptions options;
        try {
            options = ConsumerOptions.parse(args, System.getenv());
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        PrintStream progress = options.jsonLines() ? err : out;
        EntryHandler handler = options.jsonLines() ? new JsonLinesHandler(out) : entry -> { };
        RedisClient client = RedisClient.create(options.redisUrl());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            // BLOCK holds the connection: the command timeout must outlast it.
            connection.setTimeout(options.block().plusSeconds(10));
            TelemetryConsumer consumer = new TelemetryConsumer(connection.sync(), options, handler, progress);
            Thread stopper = new Thread(consumer::stop, "stop");
            Runtime.getRuntime().addShutdownHook(stopper);
            try {
                consumer.run();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException shuttingDown) {
                    // The hook already runs.
                }
            }
            return 0;
        } catch (RuntimeException e) {
            err.println("reference consumer failed: " + e);
            return 1;
        } finally {
            client.shutdown();
        }
    }
}
