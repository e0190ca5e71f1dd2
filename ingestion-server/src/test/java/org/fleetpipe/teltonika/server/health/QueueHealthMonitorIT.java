package org.fleetpipe.teltonika.server.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.command.RedisCommandStore;
import org.fleetpipe.teltonika.server.command.TakenCommand;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.stream.RetentionMode;
import org.fleetpipe.teltonika.server.stream.StreamRetentionSettings;
import org.fleetpipe.teltonika.server.stream.StreamSnapshot;
import org.fleetpipe.teltonika.server.stream.TelemetryBackpressure;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Queue health against a real Redis, with commands queued and taken by the real scripts: what is
 * stuck (due and not moving) and what is not, dead letters judged by the window, and the hash
 * health:queues written once per period by one of two monitors.
 */
@WithRedis
class QueueHealthMonitorIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    private static final String HERE = "i-1";
    private static final String OTHER = "i-2";
    private static final StreamRetentionSettings STREAM = new StreamRetentionSettings(1000,
            RetentionMode.ACKNOWLEDGED, Duration.ZERO, Duration.ofSeconds(1), 1000, 0.85, Duration.ofSeconds(60),
            100_000, 0.5, Duration.ofMinutes(5), Duration.ofMinutes(30));

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private final ObjectMapper json = new ObjectMapper();
    private final List<QueueHealthMonitor> monitors = new ArrayList<>();
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private PeriodicJobs jobs;
    private RedisCommandStore store;
    private SimpleMeterRegistry meters;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
        jobs = new PeriodicJobs("health-it", 1);
        store = new RedisCommandStore(connection.async(), keys, () -> HERE, new CommandSettings(REPLY_TIMEOUT,
                Duration.ofHours(1), Duration.ofDays(7), 100, 512, Duration.ofSeconds(60), Duration.ofDays(7), 10000,
                Duration.ofSeconds(10), 3, Duration.ofSeconds(5), false));
    }

    @AfterEach
    void close() {
        monitors.forEach(QueueHealthMonitor::close);
        jobs.close();
        connection.close();
    }

    private QueueHealthMonitor monitor(String instance, QueueHealthSettings settings) {
        meters = new SimpleMeterRegistry();
        StreamHealth stream = new StreamHealth(() -> StreamSnapshot.NONE, System::currentTimeMillis, STREAM,
                new TelemetryBackpressure(new FakeTelemetryWriter(), STREAM, 10));
        QueueHealthMonitor monitor = new QueueHealthMonitor(connection.async(), keys, settings, REPLY_TIMEOUT,
                () -> instance, TIMEOUT, meters, stream, jobs);
        monitors.add(monitor);
        return monitor;
    }

    private QueueHealthMonitor monitor() {
        return monitor(HERE, HealthSettings.defaults());
    }

    private static String imei(int i) {
        return String.format("35209308%07d", i);
    }

    /** Queues a command for the device through the real script, then makes it look queued {@code ageMs} ago. */
    private String queueOld(String imei, long ageMs) {
        String id = "cmd-" + imei + "-" + System.nanoTime();
        Blocking.await(store.enqueue(id, new Imei(imei), 12, "getinfo", "", System.currentTimeMillis() + 3_600_000, 3),
                TIMEOUT);
        long at = System.currentTimeMillis() - ageMs;
        redis.hset(commandKeys.command(id), Map.of("created_at", Long.toString(at), "updated_at", Long.toString(at)));
        redis.zadd(commandKeys.commandsQueued(), at, imei);
        return id;
    }

    private void online(String imei) {
        redis.hset(keys.registry(), imei, OTHER);
    }

    private static QueueHealth queue(QueueHealthMonitor.Report report, String name) {
        return report.queues().stream().filter(q -> q.queue().equals(name)).findFirst().orElseThrow();
    }

    private double gauge(String name, String queue) {
        return meters.get(name).tag("queue", queue).gauge().value();
    }

    @Test
    void offlineDevice_withAnHourOldCommand_isNotStuck_andTheQueueHealthy() {
        QueueHealthMonitor monitor = monitor();
        queueOld(imei(1), 3_600_000);

        QueueHealthMonitor.Report report = monitor.compute();

        QueueHealth pending = queue(report, "pending-commands");
        assertThat(pending.size()).isEqualTo(1);
        assertThat(pending.stuck()).isZero();
        assertThat(pending.detail()).containsEntry("due", 0L).containsEntry("devices_online", 0L);
        assertThat(pending.oldestAgeMs()).isGreaterThanOrEqualTo(3_600_000);
        assertThat(pending.status()).isEqualTo(HealthStatus.HEALTHY);
        assertThat(report.status()).isEqualTo(HealthStatus.HEALTHY);
    }

    @Test
    void onlineDevices_withOldQueuedCommands_nothingInFlight_areStuck_tenDegradeTheQueue() {
        QueueHealthMonitor monitor = monitor();
        queueOld(imei(0), 3_600_000); // offline: not stuck
        for (int i = 1; i <= 9; i++) {
            online(imei(i));
            queueOld(imei(i), 600_000);
        }
        // Online and old, but a command of it is in flight: its queue moves.
        online(imei(20));
        queueOld(imei(20), 600_000);
        redis.hset(commandKeys.commandsInFlight(OTHER), imei(20), "other:1");
        // Online but queued a moment ago.
        online(imei(21));
        queueOld(imei(21), 1_000);

        monitor.pass();
        QueueHealth pending = queue(monitor.last(), "pending-commands");
        assertThat(pending.stuck()).isEqualTo(9);
        assertThat(pending.detail()).containsEntry("due", 11L).containsEntry("devices_online", 11L);
        assertThat(pending.status()).isEqualTo(HealthStatus.HEALTHY);
        assertThat(gauge("teltonika.queue.stuck", "pending-commands")).isEqualTo(9);
        assertThat(meters.get("teltonika.queue.health").gauge().value()).isZero();

        online(imei(10));
        queueOld(imei(10), 600_000);
        monitor.pass();

        pending = queue(monitor.last(), "pending-commands");
        assertThat(pending.stuck()).isEqualTo(10);
        assertThat(pending.status()).isEqualTo(HealthStatus.DEGRADED);
        assertThat(pending.reason()).isEqualTo("10 stuck >= 10");
        assertThat(gauge("teltonika.queue.stuck", "pending-commands")).isEqualTo(10);
        assertThat(gauge("teltonika.queue.status", "pending-commands")).isEqualTo(1);
        assertThat(meters.get("teltonika.queue.health").gauge().value()).isEqualTo(1);
    }

    @Test
    void inFlightCommand_pastTheReplyTimeoutAndMargin_isStuck_aRecentOneIsNot_andTakingCountsAsLeaving() {
        QueueHealthMonitor monitor = monitor();
        queueOld(imei(1), 1_000);
        queueOld(imei(2), 1_000);
        monitor.compute();
        Optional<TakenCommand> old = Blocking.await(store.take(new Imei(imei(1))), TIMEOUT);
        Blocking.await(store.take(new Imei(imei(2))), TIMEOUT);
        long sent = System.currentTimeMillis() - REPLY_TIMEOUT.toMillis() - Duration.ofSeconds(31).toMillis();
        redis.hset(commandKeys.command(old.orElseThrow().id()), "sent_at", Long.toString(sent));

        QueueHealthMonitor.Report report = monitor.compute();

        QueueHealth inFlight = queue(report, "inflight-commands");
        assertThat(inFlight.size()).isEqualTo(2);
        assertThat(inFlight.stuck()).isEqualTo(1);
        assertThat(inFlight.oldestAgeMs()).isGreaterThanOrEqualTo(61_000);
        assertThat(inFlight.status()).as("one stuck is below the degraded level").isEqualTo(HealthStatus.HEALTHY);
        assertThat(inFlight.detail().get("stuck_devices")).as("the stuck one named, the recent one not")
                .isEqualTo(List.of(Map.of("imei", imei(1), "command", old.orElseThrow().id(),
                        "age_ms", inFlight.oldestAgeMs())));
        QueueHealth pending = queue(report, "pending-commands");
        assertThat(pending.size()).isZero();
        assertThat(pending.ratePerMinute()).as("two commands left the queues").isPositive();
    }

    @Test
    void deadLetterBurst_olderThanTheWindow_isHealthyAgain_whateverTheSetsSize() {
        QueueHealthMonitor monitor = monitor();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 150; i++) {
            redis.zadd(RedisFrameDeadLetters.key(keys), now - i, "{\"seq\":" + i + "}");
        }
        for (int i = 0; i < 1000; i++) {
            redis.zadd(commandKeys.commandDeadLetters(), now - i, "{\"id\":\"c" + i + "\"}");
        }

        QueueHealthMonitor.Report burst = monitor.compute();

        assertThat(queue(burst, "dlq-frames").status()).isEqualTo(HealthStatus.DEGRADED);
        assertThat(queue(burst, "dlq-frames").detail()).containsEntry("added_in_window", 150L);
        assertThat(queue(burst, "dlq-commands").status()).isEqualTo(HealthStatus.UNHEALTHY);
        assertThat(burst.status()).isEqualTo(HealthStatus.UNHEALTHY);

        // The same burst, 20 minutes on: past the 15-minute window.
        long past = now - Duration.ofMinutes(20).toMillis();
        for (String key : List.of(RedisFrameDeadLetters.key(keys), commandKeys.commandDeadLetters())) {
            for (String member : redis.zrange(key, 0, -1)) {
                redis.zadd(key, past, member);
            }
        }
        QueueHealthMonitor.Report later = monitor.compute();

        assertThat(queue(later, "dlq-frames").status()).isEqualTo(HealthStatus.HEALTHY);
        assertThat(queue(later, "dlq-frames").size()).isEqualTo(150);
        assertThat(queue(later, "dlq-commands").status()).isEqualTo(HealthStatus.HEALTHY);
        assertThat(queue(later, "dlq-commands").size()).isEqualTo(1000);
        assertThat(queue(later, "dlq-commands").oldestAgeMs()).isGreaterThanOrEqualTo(Duration.ofMinutes(20).toMillis());
        assertThat(queue(later, "dlq-commands").avgAgeMs()).as("estimated from age bands: 15 min to 1 h")
                .isBetween(Duration.ofMinutes(15).toMillis(), Duration.ofHours(1).toMillis());
        assertThat(later.status()).isEqualTo(HealthStatus.HEALTHY);
    }

    @Test
    void orphanedCommand_queuedInNoQueue_isCounted() {
        QueueHealthMonitor monitor = monitor();
        queueOld(imei(1), 1_000);
        queueOld(imei(2), 1_000);
        redis.del(commandKeys.commandQueue(imei(2)));

        QueueHealth pending = queue(monitor.compute(), "pending-commands");

        assertThat(pending.detail()).containsEntry("orphans", 1L).containsEntry("orphan_walk_complete", true);
    }

    @Test
    void healthQueuesHash_isWrittenOncePerPeriod_byOneOfTwoMonitors() throws Exception {
        Duration period = Duration.ofMillis(500);
        QueueHealthSettings settings = HealthSettings.with(period, Duration.ofMinutes(5), Duration.ofSeconds(30),
                Duration.ofMinutes(15));
        QueueHealthMonitor a = monitor(HERE, settings);
        QueueHealthMonitor b = monitor(OTHER, settings);

        assertThat(a.pass()).isTrue();
        assertThat(b.pass()).as("within a's period").isFalse();
        Map<String, String> hash = redis.hgetall("health:queues");
        assertThat(hash).containsEntry("instance", HERE).containsEntry("status", "healthy")
                .containsKeys("computedAt", "pending-commands", "inflight-commands", "dlq-frames", "dlq-commands",
                        "telemetry-stream");
        JsonNode pending = json.readTree(hash.get("pending-commands"));
        assertThat(pending.get("status").asText()).isEqualTo("healthy");
        assertThat(pending.has("stuck") && pending.has("avg_age_ms") && pending.has("rate_per_minute")
                && pending.has("orphans")).isTrue();
        assertThat(redis.pttl(HealthPublisher.key(keys))).isPositive();

        // Both pass again and again: the stored computedAt never advances by less than a period.
        List<Long> writes = new ArrayList<>(List.of(Long.parseLong(hash.get("computedAt"))));
        long until = System.currentTimeMillis() + 5 * period.toMillis();
        for (int i = 0; i < 200 && System.currentTimeMillis() < until; i++) {
            boolean wroteA = a.pass();
            boolean wroteB = b.pass();
            assertThat(wroteA && wroteB).as("both in one round").isFalse();
            if (wroteA || wroteB) {
                writes.add(Long.parseLong(redis.hget(HealthPublisher.key(keys), "computedAt")));
            }
            Thread.sleep(20); // pacing only: the assertions hold for any timing
        }
        assertThat(writes).hasSizeGreaterThanOrEqualTo(3);
        for (int i = 1; i < writes.size(); i++) {
            assertThat(writes.get(i) - writes.get(i - 1)).isGreaterThanOrEqualTo(period.toMillis());
        }

        // When the writer stops, the other takes over.
        a.close();
        await().atMost(Duration.ofSeconds(10)).until(b::pass);
        assertThat(redis.hget(HealthPublisher.key(keys), "instance")).isEqualTo(OTHER);
    }

    @Test
    void startedMonitor_writesTheHash_onItsTicker() {
        monitor(HERE, HealthSettings.with(Duration.ofMillis(200), Duration.ofMinutes(5), Duration.ofSeconds(30),
                Duration.ofMinutes(15))).start();

        await().atMost(Duration.ofSeconds(10)).until(() -> redis.hget(HealthPublisher.key(keys), "instance") != null);
    }
}
