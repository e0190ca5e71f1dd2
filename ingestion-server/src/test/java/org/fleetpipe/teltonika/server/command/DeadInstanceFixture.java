package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.janitor.JanitorMetrics;
import org.fleetpipe.teltonika.janitor.JanitorSettings;
import org.fleetpipe.teltonika.janitor.RegistryJanitor;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/** A janitor with the command hand-back as its hook, and the in-flight commands a dead instance leaves. */
final class DeadInstanceFixture {

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private DeadInstanceFixture() {
    }

    /** A janitor on {@code connection}, as OpsPart builds it, counting into {@code meters}. */
    static RegistryJanitor janitor(StatefulRedisConnection<String, String> connection, MeterRegistry meters,
                                   boolean dryRun, int scanCount) {
        RedisKeys keys = new RedisKeys("");
        JanitorSettings settings = new JanitorSettings(Duration.ofSeconds(60), 0.1, dryRun, scanCount);
        return new RegistryJanitor(connection.async(), keys, settings, new JanitorMetrics(meters), TIMEOUT,
                new DeadInstanceCommands(connection.async(), keys,
                        new CommandHandBack(connection.async(), keys, 100, Duration.ofDays(1)), scanCount, TIMEOUT,
                        new IngestionMetrics(meters)));
    }

    static String imei(int i) {
        return String.format("35209308%07d", i);
    }

    /** A command that {@code instance} sent {@code attempts} times and awaits the reply of. */
    static void sentCommand(RedisCommands<String, String> redis, String instance, String imei, String id,
                            int attempts, int maxAttempts) {
        redis.hset("command:" + id, Map.of("id", id, "imei", imei, "codec", "12", "command", "getinfo",
                "status", "sent", "attempts", Integer.toString(attempts), "max_attempts", Integer.toString(maxAttempts),
                "origin", instance, "history", "[{\"status\":\"queued\",\"at\":\"1\"}]"));
        redis.hset("commands:inflight:" + instance, imei, id + ":" + attempts);
        redis.sadd("commands:inflight-instances", instance);
    }
}
