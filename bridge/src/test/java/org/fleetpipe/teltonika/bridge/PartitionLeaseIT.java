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
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partition leases (bridge README, "Partition leases"): two replicas of one group split the
 * partitions and each device's records reach the endpoint in stream order across both; with one
 * partition one replica delivers and the other stands by until it stops; a replica that stops
 * renewing loses its lease, stops delivering, and the other takes over. Lease ttl 6 s
 * (BridgeSettingsFixture): a round every 2 s.
 */
@WithRedis
class PartitionLeaseIT {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionLeaseIT.class);
    private static final int DEVICES = 40;

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

    @Test
    void twoReplicasOnFourPartitions_splitThem2And2_andKeepEachDevicesOrderAcrossBoth(RedisFixture fixture)
            throws Exception {
        TelemetryLayout layout = new TelemetryLayout("telemetry", 4);
        redis.set("telemetry:partitions", "4");
        int rounds = 80;
        try (Bridge b1 = start(fixture, "b1")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> held(b1) == 4);
            // 400 records a second for about 8 s; the second replica joins under load, so two
            // partitions change hands while entries of them are queued and in flight.
            Future<?> writing = writeSteadily(fixture, layout, rounds, 400);
            await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() >= 400);
            try (Bridge b2 = start(fixture, "b2")) {
                await().atMost(Duration.ofSeconds(20)).until(() -> held(b1) == 2 && held(b2) == 2);
                assertThat(List.of(0, 1, 2, 3)).extracting(p -> redis.get("bridge:lease:http:{" + p + "}"))
                        .as("each lease names its holder, two each").containsOnly("b1", "b2")
                        .filteredOn("b1"::equals).hasSize(2);
                writing.get(60, TimeUnit.SECONDS);

                int total = DEVICES * rounds;
                await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == total);
                await().atMost(Duration.ofSeconds(10)).until(() -> layout.streams().stream()
                        .allMatch(stream -> redis.xpending(stream, "http").getCount() == 0));
                assertThat(endpoint.accepted()).as("none twice: a partition moved only once nothing of it was in"
                        + " flight").isEqualTo(total);
                assertEachDeviceInStreamOrder(rounds);
                assertThat(delivered(b1)).as("both delivered").isPositive();
                assertThat(delivered(b2)).isPositive();
                assertThat(delivered(b1) + delivered(b2)).isEqualTo(total);
            }
        }
    }

    @Test
    void onePartition_oneReplicaDelivers_theStandbyTakesOverAtOnceWhenItStops(RedisFixture fixture)
            throws Exception {
        TelemetryLayout layout = new TelemetryLayout("telemetry", 1);
        int rounds = 80;
        Bridge b1 = start(fixture, "b1");
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> held(b1) == 1);
            try (Bridge b2 = start(fixture, "b2")) {
                assertThat(redis.get("bridge:lease:http")).as("P = 1: the one lease, named as the stream")
                        .isEqualTo("b1");
                Future<?> writing = writeSteadily(fixture, layout, rounds, 400);
                await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() >= 1000);
                assertThat(held(b2)).as("the standby holds nothing").isZero();
                assertThat(delivered(b2)).as("and delivers nothing").isZero();

                b1.close();
                long stoppedAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(5)).until(() -> held(b2) == 1);
                LOG.info("the standby took the lease {} ms after the active replica stopped",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt));
                writing.get(60, TimeUnit.SECONDS);

                int total = DEVICES * rounds;
                await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == total);
                await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);
                assertThat(endpoint.accepted()).as("none twice: the stop finished its batches, handed the rest back")
                        .isEqualTo(total);
                assertEachDeviceInStreamOrder(rounds);
                assertThat(delivered(b1) + delivered(b2)).isEqualTo(total);
            }
        } finally {
            b1.close();
        }
    }

    @Test
    void aLeaseNotRenewed_isLost_theHolderStopsDelivering_andTheOtherTakesOver(RedisFixture fixture)
            throws Exception {
        TelemetryLayout layout = new TelemetryLayout("telemetry", 1);
        int rounds = 200;
        try (Bridge b1 = start(fixture, "b1")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> held(b1) == 1);
            try (Bridge b2 = start(fixture, "b2")) {
                Future<?> writing = writeSteadily(fixture, layout, rounds, 400);
                await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() >= 1000);
                assertThat(held(b2)).isZero();

                // As a long GC pause would: no renewal, no heartbeat.
                b1.leaseKeeper().pause(true);
                await().atMost(Duration.ofSeconds(20)).until(() -> held(b2) == 1);
                assertThat(redis.get("bridge:lease:http")).isEqualTo("b2");
                assertThat(held(b1)).as("b1 counts it lost: past its deadline").isZero();
                double b1Delivered = delivered(b1);
                int acceptedAtTakeover = endpoint.accepted();
                await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() >= acceptedAtTakeover + 1000);
                assertThat(delivered(b1)).as("b1 delivered nothing after losing the lease").isEqualTo(b1Delivered);

                b1.leaseKeeper().pause(false);
                writing.get(60, TimeUnit.SECONDS);
                int total = DEVICES * rounds;
                await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == total);
                await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);
                // At least once: a batch in flight at the loss may be delivered by both (bounded).
                assertThat(endpoint.accepted() - total).isBetween(0, 4 * 100);
                assertThat(held(b1)).as("back as the standby: the lease is b2's").isZero();
                assertThat(redis.get("bridge:lease:http")).isEqualTo("b2");
            }
        }
    }

    private Bridge start(RedisFixture fixture, String consumer) throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.http(fixture.uri(), consumer, endpoint.url());
        Bridge bridge = new Bridge(settings, BridgeMain.sink(settings));
        bridge.start();
        return bridge;
    }

    /** Each device's records in the order the servers wrote them: strictly rising times, each once. */
    private void assertEachDeviceInStreamOrder(int rounds) {
        for (int device = 0; device < DEVICES; device++) {
            List<Long> times = endpoint.recordsOf(TelemetryEntries.imei(device)).stream()
                    .map((JsonNode record) -> record.get("ts").longValue()).toList();
            assertThat(times).as("device %d", device).hasSize(rounds).isSorted().doesNotHaveDuplicates();
        }
    }

    private Future<?> writeSteadily(RedisFixture fixture, TelemetryLayout layout, int rounds, int perSecond) {
        return writer.submit(() -> {
            try (StatefulRedisConnection<String, String> own = fixture.client().connect()) {
                new TelemetryEntries(own.sync(), layout).addSteadily(DEVICES, rounds, perSecond);
            }
            return null;
        });
    }

    private static double held(Bridge bridge) {
        return bridge.registry().find("teltonika_bridge_partitions_held").gauge().value();
    }

    private static double delivered(Bridge bridge) {
        return bridge.registry().find("teltonika_bridge_delivered").counter().count();
    }
}
