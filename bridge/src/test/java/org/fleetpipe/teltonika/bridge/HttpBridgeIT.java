package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP sink against a real endpoint: delivered in device order, retried, refused into the dead letters. */
@WithRedis
class HttpBridgeIT {

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private RecordingHttpSink endpoint;
    private Bridge bridge;

    @BeforeEach
    void setUp(RedisFixture fixture) throws Exception {
        connection = fixture.client().connect();
        redis = connection.sync();
        endpoint = new RecordingHttpSink();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (bridge != null) {
            bridge.close();
        }
        endpoint.close();
        connection.close();
    }

    private Bridge start(RedisFixture fixture, BridgeSettings settings) throws Exception {
        bridge = new Bridge(settings, BridgeMain.sink(settings));
        bridge.start();
        return bridge;
    }

    @Test
    void everyRecordIsPostedAsJsonLines_inEachDevicesOrder_andAcknowledgedAfterThe2xx(RedisFixture fixture)
            throws Exception {
        start(fixture, BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        entries.addFleet(40, 25, 0);

        await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.accepted() >= 1000);
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);

        assertThat(endpoint.accepted()).isEqualTo(1000);
        for (int device = 0; device < 40; device++) {
            assertThat(timesOf(endpoint.recordsOf(TelemetryEntries.imei(device))))
                    .as("device %d", device).hasSize(25).isSorted().doesNotHaveDuplicates();
        }
        JsonNode one = endpoint.recordsOf(TelemetryEntries.imei(0)).get(0);
        assertThat(one.get("io").get("66").intValue()).isEqualTo(24079);
        assertThat(one.get("id").asText()).matches("[0-9]+-[0-9]+");
    }

    @Test
    void a503_isRetriedUntilTheEndpointTakesIt_nothingAcknowledgedBefore(RedisFixture fixture) throws Exception {
        endpoint.failWith(503, "maintenance");
        start(fixture, BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));
        new TelemetryEntries(redis, "telemetry").addFleet(10, 10, 0);

        // A retry is counted after its back-off: wait for the counter, not for requests.
        await().atMost(Duration.ofSeconds(20)).until(() -> counter("teltonika_bridge_retried") > 0
                && redis.xpending("telemetry", "http").getCount() == 100);
        assertThat(endpoint.accepted()).isZero();

        endpoint.failWith(null, "");
        await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.accepted() >= 100);
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);
        assertThat(endpoint.accepted()).isEqualTo(100);
        assertThat(redis.xlen("dlq:bridge:http")).isZero();
    }

    @Test
    void a400_movesTheBatchToTheDeadLetters_withTheStatusAndTheBodysHead_andAcknowledgesIt(RedisFixture fixture)
            throws Exception {
        endpoint.failWith(400, "{\"error\":\"field speed unknown\"}" + "x".repeat(2000));
        start(fixture, BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));
        String id = new TelemetryEntries(redis, "telemetry").add(7, 1);

        await().atMost(Duration.ofSeconds(20)).until(() -> redis.xlen("dlq:bridge:http") == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "http").getCount() == 0);
        StreamMessage<String, String> dead = redis.xrange("dlq:bridge:http", io.lettuce.core.Range.create("-", "+"))
                .get(0);
        Map<String, String> body = dead.getBody();
        assertThat(body).containsEntry("dlq_id", id).containsEntry("dlq_sink", "http")
                .containsEntry("imei", TelemetryEntries.imei(7));
        assertThat(body.get("dlq_reason")).startsWith("http refused: status 400: {\"error\":\"field speed unknown\"}")
                .hasSizeLessThan(600);
        assertThat(counter("teltonika_bridge_dead_lettered")).isEqualTo(1);
    }

    @Test
    void anEntryThatIsNotARecord_isDeadLetteredAsMalformed_andTheOthersFlow(RedisFixture fixture) throws Exception {
        start(fixture, BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        entries.add(1, 1);
        redis.xadd("telemetry", Map.of("schema", "2", "imei", TelemetryEntries.imei(2), "io", "{broken"));
        entries.add(1, 2);

        await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() == 2
                && redis.xlen("dlq:bridge:http") == 1);
        assertThat(redis.xrange("dlq:bridge:http", io.lettuce.core.Range.create("-", "+")).get(0).getBody()
                .get("dlq_reason")).startsWith("malformed: missing field");
    }

    @Test
    void aDeviceWithAKnownModel_getsIoNamesAndUnits_othersRawIdsOnly(RedisFixture fixture) throws Exception {
        redis.hset("devices:models", TelemetryEntries.imei(1), "fmb920");
        start(fixture, BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        entries.add(1, 1);
        entries.add(2, 1);

        await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() == 2);
        JsonNode named = endpoint.recordsOf(TelemetryEntries.imei(1)).get(0);
        assertThat(named.get("model").asText()).isEqualTo("fmb920");
        assertThat(named.get("io_named").get("external_voltage").decimalValue()).isEqualByComparingTo("24.079");
        assertThat(named.get("units").get("external_voltage").asText()).isEqualTo("V");
        JsonNode raw = endpoint.recordsOf(TelemetryEntries.imei(2)).get(0);
        assertThat(raw.has("io_named")).isFalse();
        assertThat(raw.get("io").get("66").intValue()).isEqualTo(24079);
    }

    private static List<Long> timesOf(List<JsonNode> records) {
        return records.stream().map(record -> record.get("ts").longValue()).toList();
    }

    private double counter(String name) {
        return bridge.registry().find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

}
