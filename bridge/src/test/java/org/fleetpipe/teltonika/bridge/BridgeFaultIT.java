package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Faults under load: the sink gone for 12 s, a replica killed with SIGKILL, a replica stopped with SIGTERM. */
@WithRedis
class BridgeFaultIT {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeFaultIT.class);
    private static final int DEVICES = 40;
    /**
     * Six times the claim idle (2 s) and twice the lease TTL (6 s) of {@link BridgeSettingsFixture}: what
     * the outage tests, entries held untouched far past the claim idle, a lease kept through it, takes no longer.
     */
    private static final int OUTAGE_SECONDS = 12;
    private static final int OUTAGE_ROUNDS = 110;

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private RecordingHttpSink endpoint;
    private final ExecutorService writer = Executors.newSingleThreadExecutor();

    @BeforeEach
    void setUp(RedisFixture fixture) throws Exception {
        connection = fixture.client().connect();
        redis = connection.sync();
        endpoint = new RecordingHttpSink();
    }

    @AfterEach
    void tearDown() {
        writer.shutdownNow();
        endpoint.close();
        connection.close();
    }

    /** Writes {@code rounds} records per device at about {@code perSecond} records a second, in the background. */
    private Future<?> writeSteadily(RedisFixture fixture, int rounds, int perSecond) {
        return writer.submit(() -> {
            try (StatefulRedisConnection<String, String> own = fixture.client().connect()) {
                new TelemetryEntries(own.sync(), "telemetry").addSteadily(DEVICES, rounds, perSecond);
            }
            return null;
        });
    }

    @Test
    void theSinkGoneFor12s_underLoad_everyRecordIsDelivered_eachDeviceInOrder(RedisFixture fixture) throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();
            // 40 devices, 200 records a second, for 22 s: the sink is away for 12 of them.
            Future<?> writing = writeSteadily(fixture, OUTAGE_ROUNDS, 200);
            await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.accepted() >= 1000);
            endpoint.down();
            long downAt = System.nanoTime();
            await().pollDelay(Duration.ofSeconds(OUTAGE_SECONDS)).atMost(Duration.ofSeconds(OUTAGE_SECONDS + 1))
                    .until(() -> true);
            long pendingWhileDown = redis.xpending("telemetry", "http").getCount();
            endpoint.up();
            LOG.info("sink was down for {} ms; pending at its return: {}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downAt), pendingWhileDown);
            writing.get(60, TimeUnit.SECONDS);

            int total = DEVICES * OUTAGE_ROUNDS;
            await().atMost(Duration.ofSeconds(90)).until(() -> endpoint.distinct() == total);
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);
            assertThat(pendingWhileDown).as("entries held unacknowledged while the sink was away").isPositive();
            // The pump, held up by full lanes for the whole outage, had read entries no lane had taken
            // yet. Once they were held only when a lane took them: untouched for the outage (30 s
            // then), they looked abandoned, and a claim just after the sink came back took 8 and sent 2
            // twice (one CI run). Held from the read on, they are touched, and nothing of its own is claimed.
            assertThat(bridge.registry().find("teltonika_bridge_claimed").counters().stream()
                    .mapToDouble(c -> c.count()).sum()).as("entries claimed back").isZero();
            // At least once: a request the endpoint took as it went down is sent again; the bound is a batch.
            LOG.info("duplicates after the outage: {}", endpoint.accepted() - total);
            assertThat(endpoint.accepted() - total).as("taken twice").isBetween(0, 100);
            for (int device = 0; device < DEVICES; device++) {
                assertThat(times(endpoint.recordsOf(TelemetryEntries.imei(device)))).as("device %d", device)
                        .hasSize(OUTAGE_ROUNDS).isSorted();
            }
        }
    }

    @Test
    void aReplicaKilledWithSigkill_leavesItsEntriesToAnother_everyRecordDelivered_duplicatesOnlyWhatItHeld(
            RedisFixture fixture) throws Exception {
        endpoint.delay(20);
        int lanes = 2;
        int batch = 50;
        try (BridgeProcess victim = BridgeProcess.start(fixture.uri(), "--sink", "http", "--url",
                endpoint.url().toString(), "--consumer", "victim", "--claim-idle", "2s", "--lease-ttl", "6s",
                "--batch", Integer.toString(batch), "--lanes", Integer.toString(lanes), "--http-port", "0",
                "--http-host", "127.0.0.1")) {
            // The victim holds the one partition's lease (README, "Partition leases"): it delivers,
            // the survivor stands by until the victim's lease runs out (6 s, as the survivor's own).
            await().atMost(Duration.ofSeconds(30)).until(() -> "victim".equals(redis.get("bridge:lease:http")));
            BridgeSettings settings = BridgeSettingsFixture.http(fixture.uri(), "survivor", endpoint.url());
            try (Bridge survivor = new Bridge(settings, BridgeMain.sink(settings))) {
                survivor.start();
                Future<?> writing = writeSteadily(fixture, 150, 1000);
                await().atMost(Duration.ofSeconds(30)).until(() -> pendingOf("victim") > 0
                        && endpoint.accepted() >= 1000);
                victim.kill();
                long heldAtKill = pendingOf("victim");
                writing.get(60, TimeUnit.SECONDS);

                int total = DEVICES * 150;
                await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == total);
                await().atMost(Duration.ofSeconds(20)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);
                int duplicates = endpoint.accepted() - total;
                // What a replica can hold: a batch in flight and two queued per lane, plus a page read.
                int canHold = lanes * 3 * batch + batch;
                LOG.info("victim held {} entries at the kill; duplicates {} (bound {})", heldAtKill, duplicates,
                        canHold);
                assertThat(duplicates).isBetween(0, canHold);
                assertThat(survivor.registry().find("teltonika_bridge_claimed").counter().count())
                        .as("entries taken over from the killed replica").isPositive();
            }
        }
    }

    @Test
    void sigterm_finishesTheBatchInFlight_acknowledgesIt_andExits0(RedisFixture fixture) throws Exception {
        endpoint.delay(1500);
        try (BridgeProcess bridge = BridgeProcess.start(fixture.uri(), "--sink", "http", "--url",
                endpoint.url().toString(), "--consumer", "leaving", "--batch", "20", "--lanes", "1",
                "--http-port", "0", "--http-host", "127.0.0.1")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.exists("telemetry") == 1
                    && !redis.xinfoGroups("telemetry").isEmpty());
            new TelemetryEntries(redis, "telemetry").addFleet(10, 20, 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.requests() >= 1);

            int exit = bridge.terminate(30);

            assertThat(exit).as(bridge.output()).isZero();
            assertThat(endpoint.accepted()).as("the batch in flight was finished").isPositive();
            java.util.Set<String> pending = new java.util.HashSet<>();
            redis.xpending("telemetry", io.lettuce.core.Consumer.from("http", "handed-back"),
                    io.lettuce.core.Range.create("-", "+"), io.lettuce.core.Limit.from(1000))
                    .forEach(message -> pending.add(message.getId()));
            List<String> acceptedIds = endpoint.byDevice().values().stream().flatMap(List::stream)
                    .map(record -> record.get("id").asText()).toList();
            assertThat(acceptedIds).as("every record the endpoint took was acknowledged").doesNotContainAnyElementsOf(
                    pending);
            assertThat(redis.xinfoConsumers("telemetry", "http").toString()).as("its name left the group")
                    .doesNotContain("leaving");
            assertThat(pending).as("what was read and not started is handed back").isNotEmpty();
            assertThat(bridge.output()).contains("bridge stopped").contains("handed back entries=" + pending.size());

            // Handed back: a replica with the default claim idle (60 s) takes them over at once.
            BridgeSettings base = BridgeSettingsFixture.http(fixture.uri(), "next", endpoint.url());
            BridgeSettings next = new BridgeSettings(base.sink(), base.redisUrl(), base.namespace(), base.group(),
                    base.consumer(), base.from(), base.partitions(), base.batch(), base.lanes(), Duration.ofSeconds(60),
                    base.leaseTtl(), base.maxBackoff(), base.shutdownGrace(), base.deadLetterMax(), base.httpHost(), base.httpPort(),
                    base.kafka(), base.http(), base.mqtt());
            endpoint.delay(0);
            try (Bridge successor = new Bridge(next, BridgeMain.sink(next))) {
                successor.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.distinct() == 200);
            }
        }
    }

    private long pendingOf(String consumer) {
        return redis.xpending("telemetry", io.lettuce.core.Consumer.from("http", consumer),
                io.lettuce.core.Range.create("-", "+"), io.lettuce.core.Limit.from(100_000)).size();
    }

    private static List<Long> times(List<JsonNode> records) {
        return records.stream().map(record -> record.get("ts").longValue()).toList();
    }
}
