package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MQTT sink against a real broker in-process: QoS 1 on each device's topic, acknowledged in the
 * stream only after the PUBACK, and through a broker outage nothing lost and each device in order.
 */
@WithRedis
class MqttBridgeIT {

    private static final String FILTER = "teltonika/+/records";

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private InProcessMqttBroker broker;
    private MqttReader reader;
    private Bridge bridge;

    @BeforeEach
    void setUp(RedisFixture fixture) throws Exception {
        connection = fixture.client().connect();
        redis = connection.sync();
        broker = new InProcessMqttBroker();
        reader = new MqttReader(broker.url(), FILTER);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (bridge != null) {
            bridge.close();
        }
        reader.close();
        broker.close();
        connection.close();
    }

    private void startBridge(RedisFixture fixture) throws Exception {
        startBridge(BridgeSettingsFixture.mqtt(fixture.uri(), "m1", broker.url()));
    }

    private void startBridge(BridgeSettings settings) throws Exception {
        bridge = new Bridge(settings, BridgeMain.sink(settings));
        bridge.start();
    }

    @Test
    void everyRecordIsPublishedOnItsDevicesTopic_inEachDevicesOrder_andAcknowledgedAfterThePuback(
            RedisFixture fixture) throws Exception {
        startBridge(fixture);
        new TelemetryEntries(redis, "telemetry").addFleet(40, 25, 0);

        await().atMost(Duration.ofSeconds(60)).until(() -> reader.count() >= 1000);
        await().atMost(Duration.ofSeconds(10)).until(() -> pending() == 0);

        List<MqttReader.Received> received = reader.received();
        assertThat(received).hasSize(1000);
        Map<String, List<Long>> times = new LinkedHashMap<>();
        for (MqttReader.Received message : received) {
            assertThat(message.topic()).isEqualTo("teltonika/" + message.imei() + "/records");
            times.computeIfAbsent(message.imei(), imei -> new ArrayList<>()).add(message.ts());
        }
        assertThat(times).hasSize(40);
        times.forEach((imei, ts) -> assertThat(ts).as(imei).hasSize(25).isSorted().doesNotHaveDuplicates());
        assertThat(delivered()).isEqualTo(1000);
        assertThat(redis.xlen("dlq:bridge:mqtt")).isZero();
    }

    @Test
    void throughABrokerOutage_nothingUnconfirmedIsAcknowledged_andAfterwardsEveryRecordArrivesInOrder(
            RedisFixture fixture) throws Exception {
        startBridge(fixture);
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        entries.addFleet(40, 5, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.distinct() == 200 && pending() == 0);
        assertThat(delivered()).isEqualTo(200);

        // Publishes now reach the broker but get no PUBACK: in flight when the broker goes away.
        broker.pauseBridge();
        entries.addFleet(40, 1, 5);
        int unconfirmed = 40;
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.withheld() > 0);
        broker.stop();

        // About 10 s without a broker while the servers keep writing; nothing may be acknowledged.
        for (int round = 6; round < 16; round++) {
            entries.addFleet(40, 1, round);
            unconfirmed += 40;
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> delivered() == 200);
        }
        int written = unconfirmed;
        // Every entry written since the pause was read and none acknowledged: all of them pending
        // (the 40 devices hash 10 to a lane: 110 entries a lane, within its queue of two batches).
        await().atMost(Duration.ofSeconds(10)).until(() -> pending() == written);
        assertThat(delivered()).isEqualTo(200);
        assertThat(reader.distinct()).isEqualTo(200);

        // The broker comes back empty; the reader subscribes before the bridge may connect again.
        broker.start();
        reader.connect();
        broker.resumeBridge();

        await().atMost(Duration.ofSeconds(60)).until(() -> reader.distinct() == 640);
        await().atMost(Duration.ofSeconds(10)).until(() -> pending() == 0);
        assertThat(delivered()).isEqualTo(640);

        List<MqttReader.Received> received = reader.received();
        Map<String, LinkedHashSet<Long>> firstArrivals = new LinkedHashMap<>();
        for (MqttReader.Received message : received) {
            assertThat(message.topic()).isEqualTo("teltonika/" + message.imei() + "/records");
            firstArrivals.computeIfAbsent(message.imei(), imei -> new LinkedHashSet<>()).add(message.ts());
        }
        assertThat(firstArrivals).hasSize(40);
        firstArrivals.forEach((imei, ts) -> assertThat(new ArrayList<>(ts)).as(imei).hasSize(16).isSorted());
        // Only records in flight when the broker went can come twice: at most a batch per lane.
        int duplicates = received.size() - 640;
        assertThat(duplicates).as("duplicates").isBetween(0, 100 * 4);
        assertThat(redis.xlen("dlq:bridge:mqtt")).isZero();
    }

    @Test
    void aBrokerRefusingTheBridgesConnect_isRefusing_retried_nothingDeadLettered_thenEverythingDelivered(
            RedisFixture fixture) throws Exception {
        broker.pauseBridge();
        startBridge(fixture);
        new TelemetryEntries(redis, "telemetry").addFleet(20, 5, 0);

        await().atMost(Duration.ofSeconds(20)).until(() -> gauge("teltonika_bridge_sink_refusing") == 1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6))
                .until(() -> pending() == 100 && redis.xlen("dlq:bridge:mqtt") == 0);

        broker.resumeBridge();
        await().atMost(Duration.ofSeconds(60)).until(() -> reader.distinct() == 100 && pending() == 0);
        assertThat(redis.xlen("dlq:bridge:mqtt")).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge("teltonika_bridge_sink_refusing") == 0);
    }

    @Test
    void aPayloadOverTheBrokersLimit_isTheOnlyDeadLetter_theDevicesLaterRecordsFollow(RedisFixture fixture)
            throws Exception {
        startBridge(BridgeSettingsFixture.mqtt(fixture.uri(), "m1", broker.url(), 4096));
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        entries.addFleet(20, 2, 0);
        String large = entries.addLarge(3, 2, 12_000);
        entries.addFleet(20, 2, 3);

        await().atMost(Duration.ofSeconds(60)).until(() -> reader.distinct() == 80 && pending() == 0);
        assertThat(redis.xlen("dlq:bridge:mqtt")).isEqualTo(1);
        assertThat(redis.xrange("dlq:bridge:mqtt", io.lettuce.core.Range.create("-", "+")).get(0).getBody())
                .containsEntry("dlq_id", large)
                .hasEntrySatisfying("dlq_reason", reason -> assertThat(reason).contains("--mqtt-max-payload"));
        List<Long> third = reader.received().stream().filter(m -> m.imei().equals(TelemetryEntries.imei(3)))
                .map(MqttReader.Received::ts).distinct().toList();
        assertThat(third).hasSize(4).isSorted();
    }

    private double gauge(String name) {
        return bridge.registry().find(name).gauge().value();
    }

    private long pending() {
        return redis.xpending("telemetry", "mqtt").getCount();
    }

    private double delivered() {
        return bridge.registry().find("teltonika_bridge_delivered").counter().count();
    }
}
