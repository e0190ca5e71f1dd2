package org.fleetpipe.teltonika.server.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandExpiry;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scheduled purge in each PURGE_MODE, and the purge on demand, against real Redis. */
@WithRedis
class PurgerIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final String IMEI = "352093081452251";
    private static final CommandSettings COMMANDS = new CommandSettings(Duration.ofSeconds(30), Duration.ofHours(1),
            Duration.ofDays(7), 100, 512, Duration.ofSeconds(60), Duration.ofDays(7), 10000, Duration.ofSeconds(10),
            3, Duration.ofSeconds(5), false);

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private SimpleMeterRegistry meters;
    private IngestionMetrics metrics;
    private PeriodicJobs jobs;
    private Purger purger;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
        meters = new SimpleMeterRegistry();
        metrics = new IngestionMetrics(meters);
        jobs = new PeriodicJobs("purge-test", 1);
        seed();
    }

    @AfterEach
    void close() {
        if (purger != null) {
            purger.close();
        }
        jobs.close();
        connection.close();
    }

    private Purger purger(PurgeMode mode) {
        OpsSettings settings = new OpsSettings(true, Duration.ofDays(7), mode, INTERVAL, 10000);
        purger = new Purger(connection.async(), keys, settings,
                new CommandExpiry(connection.async(), keys, COMMANDS, metrics, TIMEOUT), metrics, TIMEOUT, jobs);
        return purger;
    }

    /** One frame dead letter past its TTL and a fresh one, an orphaned command, and a queued command past its TTL. */
    private void seed() {
        long old = System.currentTimeMillis() - Duration.ofDays(30).toMillis();
        redis.zadd(RedisFrameDeadLetters.key(keys), old, "{\"reason\":\"bad-crc\",\"at\":" + old + "}");
        redis.zadd(RedisFrameDeadLetters.key(keys), System.currentTimeMillis(),
                "{\"reason\":\"bad-crc\",\"fresh\":true}");
        redis.hset(commandKeys.command("lost-1"), Map.of("id", "lost-1", "imei", IMEI, "codec", "12", "command",
                "getinfo",
                "status", "queued", "history", "[]",
                "expires_at", Long.toString(System.currentTimeMillis() + 3_600_000)));
        redis.hset(commandKeys.command("expiring"), Map.of("id", "expiring", "imei", IMEI, "codec", "12", "command",
                "getinfo", "status", "queued", "history", "[]",
                "expires_at", Long.toString(System.currentTimeMillis() - 1)));
        redis.rpush(commandKeys.commandQueue(IMEI), "expiring");
        redis.zadd(commandKeys.commandsQueued(), 1, IMEI);
    }

    private double removed(String what, String mode) {
        return meters.get("teltonika.purge.removed").tag("what", what).tag("mode", mode).counter().count();
    }

    private double passes(String mode) {
        return meters.get("teltonika.purge.passes").tag("mode", mode).counter().count();
    }

    @Test
    void dryRunMode_eachScheduledPassCountsOrphansUnderModeDryRun_andStillRemovesDeadLettersPastTheirTtl() {
        purger(PurgeMode.DRY_RUN).start();

        await().atMost(TIMEOUT).until(() -> passes("dry-run") >= 3);

        assertThat(redis.zrange(RedisFrameDeadLetters.key(keys), 0, -1)).as("DLQ_TTL holds whatever PURGE_MODE says")
                .containsExactly("{\"reason\":\"bad-crc\",\"fresh\":true}");
        assertThat(removed("frame-dead-letter", "live")).as("removed once, then nothing is left").isEqualTo(1);
        assertThat(redis.hget(commandKeys.command("lost-1"), "status")).isEqualTo("queued");
        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isZero();
        assertThat(removed("orphaned-command", "dry-run")).as("each pass counts what it would fail")
                .isGreaterThanOrEqualTo(3);
        assertThat(removed("orphaned-command", "live")).isZero();
        assertThat(passes("live")).isZero();
    }

    @Test
    void liveMode_theScheduledPassRemoves_countsUnderModeLive_andLeavesTtlExpiryToTheCommandSweep() {
        purger(PurgeMode.LIVE).start();

        await().atMost(TIMEOUT).until(() -> passes("live") >= 2);

        assertThat(redis.zcard(RedisFrameDeadLetters.key(keys))).isEqualTo(1);
        assertThat(redis.hget(commandKeys.command("lost-1"), "reason")).isEqualTo("orphaned");
        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isEqualTo(1);
        assertThat(removed("frame-dead-letter", "live")).as("removed once, then nothing is left").isEqualTo(1);
        assertThat(removed("orphaned-command", "live")).isEqualTo(1);
        assertThat(removed("frame-dead-letter", "dry-run")).isZero();
        assertThat(redis.hget(commandKeys.command("expiring"), "status"))
                .as("a queued command past its TTL is the command sweep's, never the purge's").isEqualTo("queued");
        assertThat(redis.lrange(commandKeys.commandQueue(IMEI), 0, -1)).containsExactly("expiring");
    }

    @Test
    void offMode_scheduledPassesLeaveOrphansAlone_removeDeadLettersPastTheirTtl_andAPurgeOnDemandDoesWhatItAsks() {
        purger(PurgeMode.OFF).start();

        await().atMost(TIMEOUT).until(() -> passes("off") >= 2);
        assertThat(redis.zcard(RedisFrameDeadLetters.key(keys))).isEqualTo(1);
        assertThat(removed("frame-dead-letter", "live")).isEqualTo(1);
        assertThat(redis.hget(commandKeys.command("lost-1"), "status")).isEqualTo("queued");
        assertThat(removed("orphaned-command", "dry-run") + removed("orphaned-command", "live")).isZero();
        assertThat(passes("dry-run") + passes("live")).isZero();

        PurgeReport dry = purger.purgeSoon(true).join();

        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.mode()).isEqualTo(PurgeMode.DRY_RUN);
        assertThat(dry.orphanedCommands()).isEqualTo(1);
        assertThat(redis.hget(commandKeys.command("lost-1"), "status")).isEqualTo("queued");
        assertThat(passes("dry-run")).isEqualTo(1);

        PurgeReport live = purger.purgeSoon(false).join();

        assertThat(live.mode()).isEqualTo(PurgeMode.LIVE);
        assertThat(live.orphanedCommands()).isEqualTo(1);
        assertThat(redis.hget(commandKeys.command("lost-1"), "reason")).isEqualTo("orphaned");
        assertThat(redis.hget(commandKeys.command("expiring"), "status")).isEqualTo("queued");
    }
}
