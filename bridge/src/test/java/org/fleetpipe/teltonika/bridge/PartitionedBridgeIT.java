package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.Consumer;
import io.lettuce.core.Range;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.fleetpipe.teltonika.bridge.stream.GroupStart;
import org.fleetpipe.teltonika.bridge.stream.StreamKeys;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The servers' partitioned layout (TELEMETRY.md, "Partitions"): four streams {@code telemetry:{p}},
 * each device in one of them, the layout key at 4. One bridge reads them all in its group.
 */
@WithRedis
class PartitionedBridgeIT {

    private static final TelemetryLayout LAYOUT = new TelemetryLayout("telemetry", 4);

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private RecordingHttpSink endpoint;

    @BeforeEach
    void setUp(RedisFixture fixture) throws Exception {
        connection = fixture.client().connect();
        redis = connection.sync();
        endpoint = new RecordingHttpSink();
        redis.set("telemetry:partitions", "4");
    }

    @AfterEach
    void tearDown() throws Exception {
        endpoint.close();
        connection.close();
    }

    @Test
    void everyPartitionIsDelivered_eachRecordOnce_eachDeviceInOrder_andAcknowledgedOnItsStream(RedisFixture fixture)
            throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();
            new TelemetryEntries(redis, LAYOUT).addFleet(40, 25, 0);
            for (String stream : LAYOUT.streams()) {
                assertThat(redis.xlen(stream)).as("the fleet spreads over every partition: %s", stream).isPositive();
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.accepted() >= 1000);
            await().atMost(Duration.ofSeconds(10)).until(() -> LAYOUT.streams().stream()
                    .allMatch(stream -> redis.xpending(stream, "http").getCount() == 0));
            assertThat(endpoint.accepted()).isEqualTo(1000);
            for (int device = 0; device < 40; device++) {
                assertThat(timesOf(endpoint.recordsOf(TelemetryEntries.imei(device))))
                        .as("device %d", device).hasSize(25).isSorted().doesNotHaveDuplicates();
            }
            assertThat(redis.exists("telemetry")).as("the unpartitioned stream is not read").isZero();
            // The lag is measured every 5 s, summed over the partitions.
            await().atMost(Duration.ofSeconds(15)).until(() -> gauge(bridge, "teltonika_bridge_lag_seconds") == 0
                    && counter(bridge, "teltonika_bridge_redis_errors") == 0);
        }
    }

    @Test
    void ownPendingEntriesOfEveryPartition_areResumed_andADeadReplicasAreClaimedFromEachStream(RedisFixture fixture)
            throws Exception {
        new TelemetryEntries(redis, LAYOUT).addFleet(20, 10, 0);
        for (String stream : LAYOUT.streams()) {
            redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, "0-0"), "http", XGroupCreateArgs.Builder.mkstream());
            // Read and never acknowledged: 3 by this replica before a restart, 4 by one that died.
            redis.xreadgroup(Consumer.from("http", "b1"), XReadArgs.Builder.count(3),
                    XReadArgs.StreamOffset.lastConsumed(stream));
            redis.xreadgroup(Consumer.from("http", "dead"), XReadArgs.Builder.count(4),
                    XReadArgs.StreamOffset.lastConsumed(stream));
        }

        BridgeSettings settings = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();

            await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.distinct() == 200
                    && LAYOUT.streams().stream().allMatch(stream -> redis.xpending(stream, "http").getCount() == 0));
            assertThat(endpoint.accepted()).as("each once").isEqualTo(200);
            assertThat(counter(bridge, "teltonika_bridge_claimed")).as("4 of each partition's").isEqualTo(16);
        }
    }

    @Test
    void from_replaysThePeriodOnEveryPartition_andATrimmedPartitionIsRefused(RedisFixture fixture) throws Exception {
        TelemetryEntries entries = new TelemetryEntries(redis, LAYOUT);
        BridgeSettings first = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
        String replayFrom;
        try (Bridge bridge = new Bridge(first, BridgeMain.sink(first))) {
            bridge.start();
            entries.addFleet(8, 10, 0);
            replayFrom = entries.add(0, 10);
            entries.addFleet(8, 10, 11);
            await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() == 161);
        }
        long fromThen = LAYOUT.streams().stream()
                .mapToLong(stream -> redis.xrange(stream, Range.create(replayFrom, "+")).size()).sum();
        assertThat(fromThen).isGreaterThanOrEqualTo(81);

        BridgeSettings replay = new BridgeSettings(first.sink(), first.redisUrl(), first.namespace(), first.group(),
                first.consumer(), Optional.of(replayFrom), first.partitions(), first.batch(), first.lanes(),
                first.claimIdle(), first.leaseTtl(), first.maxBackoff(), first.shutdownGrace(), first.deadLetterMax(), first.httpHost(),
                first.httpPort(), first.kafka(), first.http(), first.mqtt());
        try (Bridge bridge = new Bridge(replay, BridgeMain.sink(replay))) {
            bridge.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() == 161 + fromThen);
        }
        assertThat(endpoint.distinct()).isEqualTo(161);

        String trimmedStream = LAYOUT.streams().get(2);
        String oldest = redis.xrange(trimmedStream, Range.create("-", "+")).get(0).getId();
        redis.xdel(trimmedStream, oldest);
        StreamKeys keys = new StreamKeys("", "late", 4);
        assertThatThrownBy(() -> GroupStart.apply(redis, keys, Optional.of(oldest)))
                .hasMessageContaining("before the oldest entry still in the stream " + trimmedStream);
        assertThat(LAYOUT.streams()).allMatch(stream -> redis.xinfoGroups(stream).size() == 1,
                "no partition got the refused group");
        assertThat(GroupStart.apply(redis, keys, Optional.of("0-0"))).isEqualTo("group=late created at=0-0 partitions=4");
    }

    private static List<Long> timesOf(List<JsonNode> records) {
        return records.stream().map(record -> record.get("ts").longValue()).toList();
    }

    private static double counter(Bridge bridge, String name) {
        return bridge.registry().find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static double gauge(Bridge bridge, String name) {
        return bridge.registry().find(name).gauge().value();
    }
}
