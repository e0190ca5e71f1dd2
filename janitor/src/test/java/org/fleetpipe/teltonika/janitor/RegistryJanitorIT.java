package org.fleetpipe.teltonika.janitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@WithRedis
class RegistryJanitorIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private SimpleMeterRegistry meters;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
        meters = new SimpleMeterRegistry();
    }

    @AfterEach
    void close() {
        connection.close();
    }

    private RegistryJanitor janitor(boolean dryRun, int scanCount) {
        return janitor(new RedisKeys(""), dryRun, scanCount);
    }

    private RegistryJanitor janitor(RedisKeys keys, boolean dryRun, int scanCount) {
        return janitor(keys, dryRun, scanCount, TIMEOUT);
    }

    private RegistryJanitor janitor(RedisKeys keys, boolean dryRun, int scanCount, Duration callTimeout) {
        JanitorSettings settings = new JanitorSettings(Duration.ofSeconds(60), 0.1, dryRun, scanCount);
        return new RegistryJanitor(connection.async(), keys, settings, new JanitorMetrics(meters), callTimeout,
                InstanceLeftovers.NONE);
    }

    private void entries(String owner, int from, int count) {
        Map<String, String> fields = new HashMap<>();
        for (int i = from; i < from + count; i++) {
            fields.put(imei(i), owner);
        }
        redis.hset("connections:registry", fields);
    }

    private static String imei(int i) {
        return String.format("35209308%07d", i);
    }

    private double evictedMetric(String id) {
        var counter = meters.find("teltonika.registry.janitor.evicted").tag("instance_id", id).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void sweep_evictsOnlyEntriesOfInstancesWithoutHeartbeat_andCountsThem() {
        redis.hset("instance:heartbeat:live-1", "host", "h");
        entries("live-1", 0, 300);
        entries("dead-2", 300, 250);
        entries("dead-3", 550, 7);

        SweepResult result = janitor(false, 50).sweepOnce();

        assertThat(redis.hlen("connections:registry")).isEqualTo(300);
        assertThat(redis.hvals("connections:registry")).containsOnly("live-1");
        assertThat(result.evicted()).isEqualTo(257);
        assertThat(result.evictedByInstance()).containsExactlyInAnyOrderEntriesOf(Map.of("dead-2", 250L, "dead-3", 7L));
        assertThat(result.instances()).isEqualTo(3);
        assertThat(result.deadInstances()).isEqualTo(2);
        assertThat(result.scanned()).isGreaterThanOrEqualTo(557);
        assertThat(evictedMetric("dead-2")).isEqualTo(250);
        assertThat(evictedMetric("dead-3")).isEqualTo(7);
    }

    @Test
    void sweep_twice_isIdempotent_andTheSecondPassCountsNothing() {
        entries("dead-2", 0, 40);
        janitor(false, 10).sweepOnce();

        SweepResult second = janitor(false, 10).sweepOnce();

        assertThat(second.evicted()).isZero();
        assertThat(evictedMetric("dead-2")).isEqualTo(40);
    }

    @Test
    void dryRun_reportsWhatWouldGo_andEvictsNothing() {
        redis.hset("instance:heartbeat:live-1", "host", "h");
        entries("live-1", 0, 5);
        entries("dead-2", 5, 12);

        SweepResult result = janitor(true, 100).sweepOnce();

        assertThat(result.dryRun()).isTrue();
        assertThat(result.evicted()).isEqualTo(12);
        assertThat(redis.hlen("connections:registry")).isEqualTo(17);
        assertThat(evictedMetric("dead-2")).isZero();
    }

    @Test
    void sweep_withNamespace_touchesOnlyItsOwnKeys() {
        entries("dead-2", 0, 3);
        redis.hset("fleet-a:connections:registry", imei(9), "dead-9");

        SweepResult result = janitor(new RedisKeys("fleet-a:"), false, 100).sweepOnce();

        assertThat(result.evicted()).isEqualTo(1);
        assertThat(redis.hlen("connections:registry")).isEqualTo(3);
        assertThat(redis.exists("fleet-a:connections:registry")).isZero();
    }

    @Test
    void sweep_forgetsKnownIdsWithoutHeartbeat_andKeepsLiveOnes() {
        redis.hset("instance:heartbeat:live-1", "host", "h");
        redis.zadd("instance:ids", 1, "live-1");
        redis.zadd("instance:ids", 2, "dead-2");

        janitor(false, 100).sweepOnce();

        assertThat(redis.zrange("instance:ids", 0, -1)).containsExactly("live-1");
    }

    @Test
    void passWhoseLaterPageFails_stillCountsTheEvictionsOfTheEarlierPages(RedisFixture fixture) {
        entries("dead-9", 0, 1000);
        AtomicLong evictedWhenRedisStopped = new AtomicLong(-1);
        // Redis goes away right after the first page's evictions, on the janitor's own thread: a real failure of
        // the next HSCAN, at a known point of the pass.
        meters.config().onMeterAdded(meter -> {
            if (meter.getId().getName().equals("teltonika.registry.janitor.evicted")) {
                evictedWhenRedisStopped.set(1000 - redis.hlen("connections:registry"));
                fixture.stop();
            }
        });
        JanitorSettings settings = new JanitorSettings(Duration.ofSeconds(60), 0.1, false, 100);
        JanitorMetrics metrics = new JanitorMetrics(meters);
        RegistryJanitor janitor = new RegistryJanitor(connection.async(), new RedisKeys(""), settings, metrics,
                Duration.ofSeconds(2), InstanceLeftovers.NONE);

        try (PeriodicJobs jobs = new PeriodicJobs("janitor-test", 1)) {
            new JanitorTicker(janitor, settings, metrics, jobs).tick();
        }

        assertThat(evictedWhenRedisStopped.get()).as("a first page was evicted, and not the whole hash")
                .isPositive().isLessThan(1000);
        assertThat(evictedMetric("dead-9")).isEqualTo(evictedWhenRedisStopped.get());
        assertThat(meters.find("teltonika.registry.janitor.passes").tag("result", "failed").counter().count())
                .isEqualTo(1);
        assertThat(meters.find("teltonika.registry.janitor.passes").tag("result", "ok").counter().count()).isZero();
    }

    @Test
    void evictScript_whenTheHeartbeatCameBack_evictsNothing() {
        entries("flaky-4", 0, 10);
        RegistryJanitor janitor = janitor(false, 100);
        // The heartbeat returns between the janitor's EXISTS and its script: the script's own check decides.
        redis.hset("instance:heartbeat:flaky-4", "host", "h");

        assertThat(janitor.sweepOnce().evicted()).isZero();
        assertThat(redis.hlen("connections:registry")).isEqualTo(10);
    }
}
