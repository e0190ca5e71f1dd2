package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.PrintStream;
import java.io.PrintWriter;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import picocli.CommandLine;

/** {@code java -jar reference-consumer.jar --group mine}: reads the telemetry stream and prints progress. */
public final class ReferenceConsumerMain {

    private ReferenceConsumerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs to completion; returns the exit code: 0 done (or after {@code --help}, the usage on
     * {@code out}), 2 bad options (the reason and the usage on {@code err}), 1 Redis failed.
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        ConsumerCommand command = new ConsumerCommand();
        return command.commandLine()
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .setExecutionStrategy(parsed -> {
                    Integer help = CommandLine.executeHelpRequest(parsed);
                    return help != null ? help : consume(command.options(), out, err);
                })
                .execute(args);
    }

    private static int consume(ConsumerOptions options, PrintStream out, PrintStream err) {
        PrintStream progress = options.jsonLines() ? err : out;
        boolean cluster = ClusterSeed.is(options.redisUrl());
        AbstractRedisClient client = cluster ? RedisClusterClient.create(ClusterSeed.of(options.redisUrl()))
                : RedisClient.create(options.redisUrl());
        try (StatefulConnection<String, String> connection = cluster ? ((RedisClusterClient) client).connect()
                : ((RedisClient) client).connect()) {
            // BLOCK holds the connection: the command timeout must outlast it.
            connection.setTimeout(options.block().plusSeconds(10));
            RedisClusterCommands<String, String> redis = connection instanceof StatefulRedisClusterConnection<String, String> c
                    ? c.sync() : ((StatefulRedisConnection<String, String>) connection).sync();
            // The handler runs between reads on the consumer's one thread: its HGETs share the connection.
            EntryHandler handler = options.jsonLines() ? new JsonLinesHandler(out, new RecordPayload(IoDictionary.load()),
                    new DeviceModelCache(new RedisModelLookup(redis, options.modelsHash()))) : entry -> { };
            TelemetryConsumer consumer = new TelemetryConsumer(redis, cluster, options, handler, progress);
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
