package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a team sees on day one with the HTTP sink: the records stored before the bridge's first start
 * delivered, a sink refusing the bridge for a while costing nothing, one poison record costing only
 * itself, and the dead letters at their cap holding instead of dropping one.
 */
@WithRedis
class DayOneDeliveryIT {

    private static final int DEVICES = 50;

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

    private void start(BridgeSettings settings) throws Exception {
        bridge = new Bridge(settings, BridgeMain.sink(settings));
        bridge.start();
    }

    @Test
    void recordsStoredBeforeTheFirstStart_areAllDelivered(RedisFixture fixture) throws Exception {
        new TelemetryEntries(redis, "telemetry").addFleet(DEVICES, 10, 0);

        start(BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));

        await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.distinct() == 500 && pending() == 0);
        assertThat(endpoint.accepted()).isEqualTo(500);
        assertThat(redis.xlen("dlq:bridge:http")).isZero();
    }

    @Test
    void fromEnd_skipsWhatTheStreamHeld_andDeliversWhatComesAfter(RedisFixture fixture) throws Exception {
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        entries.addFleet(DEVICES, 10, 0);

        start(BridgeSettingsFixture.withFrom(BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()), "end"));
        entries.addFleet(DEVICES, 1, 10);

        await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.accepted() >= DEVICES && pending() == 0);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> endpoint.accepted() == DEVICES);
        for (JsonNode record : endpoint.byDevice().values().stream().flatMap(List::stream).toList()) {
            assertThat(record.get("ts").longValue()).as("only the records written after the start")
                    .isEqualTo(1_700_000_000_000L + 10 * 1000);
        }
    }

    @Test
    void a401For5s_deliversEverythingAfterwards_nothingDeadLettered_notReadyMeanwhile(RedisFixture fixture)
            throws Exception {
        endpoint.failWith(401, "{\"error\":\"token expired\"}");
        start(BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));
        new TelemetryEntries(redis, "telemetry").addFleet(DEVICES, 10, 0);

        await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.requests() > 0);
        // About ten attempts at the fixture's 500 ms backoff cap: no attempt limit dead-letters them.
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10))
                .until(() -> redis.xlen("dlq:bridge:http") == 0 && endpoint.accepted() == 0);
        assertThat(pending()).isPositive();
        assertThat(gauge("teltonika_bridge_sink_refusing")).isEqualTo(1);
        assertThat(readiness()).startsWith("503").contains("sink refusing the bridge");

        endpoint.failWith(null, "");
        await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == 500 && pending() == 0);
        assertThat(redis.xlen("dlq:bridge:http")).isZero();
        assertThat(counter("teltonika_bridge_dead_lettered")).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge("teltonika_bridge_sink_refusing") == 0);
        assertThat(readiness()).startsWith("200");
    }

    @Test
    void onePoisonRecord_isTheOnlyDeadLetter_everyOtherRecordDeliveredInOrder_nothingPending(RedisFixture fixture)
            throws Exception {
        String poisonImei = TelemetryEntries.imei(7);
        long poisonTs = 1_700_000_000_000L + 3 * 1000;
        endpoint.refuseRequestsHolding(record -> record.get("imei").asText().equals(poisonImei)
                && record.get("ts").longValue() == poisonTs);
        new TelemetryEntries(redis, "telemetry").addFleet(DEVICES, 10, 0);

        start(BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url()));

        await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == 499 && pending() == 0);
        assertThat(redis.xlen("dlq:bridge:http")).isEqualTo(1);
        StreamMessage<String, String> dead = redis.xrange("dlq:bridge:http", Range.create("-", "+")).get(0);
        assertThat(dead.getBody()).containsEntry("imei", poisonImei).containsEntry("ts", Long.toString(poisonTs));
        assertThat(dead.getBody().get("dlq_reason")).startsWith("http refused: status 400");
        for (int device = 0; device < DEVICES; device++) {
            List<Long> times = endpoint.recordsOf(TelemetryEntries.imei(device)).stream()
                    .map(record -> record.get("ts").longValue()).toList();
            assertThat(times).as("device %d", device).hasSize(device == 7 ? 9 : 10).isSorted()
                    .doesNotHaveDuplicates();
        }
        assertThat(counter("teltonika_bridge_batches_split")).isPositive();
    }

    @Test
    void deadLettersAtTheirCap_hold_theRefusedRecordStaysPending_untilDrained(RedisFixture fixture) throws Exception {
        BridgeSettings s = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
        BridgeSettings capped = new BridgeSettings(s.sink(), s.redisUrl(), s.namespace(), s.group(), s.consumer(),
                s.from(), s.partitions(), s.batch(), s.lanes(), s.claimIdle(), s.leaseTtl(), s.maxBackoff(),
                s.shutdownGrace(), 3, s.httpHost(), s.httpPort(), s.kafka(), s.http(), s.mqtt());
        for (int i = 0; i < 3; i++) {
            redis.xadd("dlq:bridge:http", java.util.Map.of("undrained", Integer.toString(i)));
        }
        String oldest = redis.xrange("dlq:bridge:http", Range.create("-", "+")).get(0).getId();
        String poisonImei = TelemetryEntries.imei(7);
        endpoint.refuseRequestsHolding(record -> record.get("imei").asText().equals(poisonImei));
        start(capped);
        TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
        String poison = entries.add(7, 0);

        await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.requests() > 0);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> pending() == 1
                && redis.xlen("dlq:bridge:http") == 3);
        assertThat(redis.xrange("dlq:bridge:http", Range.create("-", "+")).get(0).getId()).isEqualTo(oldest);
        assertThat(gauge("teltonika_bridge_dead_letters_full")).isEqualTo(1);
        assertThat(readiness()).startsWith("503").contains("dead letters full");

        redis.del("dlq:bridge:http");
        await().atMost(Duration.ofSeconds(20)).until(() -> pending() == 0 && redis.xlen("dlq:bridge:http") == 1);
        assertThat(redis.xrange("dlq:bridge:http", Range.create("-", "+")).get(0).getBody())
                .containsEntry("dlq_id", poison);
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge("teltonika_bridge_dead_letters_full") == 0);
    }

    @Test
    void redrive_sendsTheDeadLettersBack_removingEachDelivered_keepingOneRefusedAgain(RedisFixture fixture)
            throws Exception {
        String seven = TelemetryEntries.imei(7);
        String nine = TelemetryEntries.imei(9);
        long ts3 = 1_700_000_000_000L + 3 * 1000;
        long ts5 = 1_700_000_000_000L + 5 * 1000;
        endpoint.refuseRequestsHolding(record -> record.get("imei").asText().equals(seven)
                && record.get("ts").longValue() == ts3
                || record.get("imei").asText().equals(nine) && record.get("ts").longValue() == ts5);
        new TelemetryEntries(redis, "telemetry").addFleet(DEVICES, 10, 0);
        BridgeSettings settings = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
        start(settings);
        await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == 498 && pending() == 0
                && redis.xlen("dlq:bridge:http") == 2);
        String sevensId = redis.xrange("dlq:bridge:http", Range.create("-", "+")).stream()
                .filter(letter -> letter.getBody().get("imei").equals(seven)).findFirst().orElseThrow()
                .getBody().get("dlq_id");

        // The endpoint takes device 7's record now, not device 9's.
        endpoint.refuseRequestsHolding(record -> record.get("imei").asText().equals(nine)
                && record.get("ts").longValue() == ts5);
        var result = BridgeRedrive.run(settings, BridgeMain.sink(settings));

        assertThat(result.delivered()).isEqualTo(1);
        assertThat(result.refusedAgain()).isEqualTo(1);
        assertThat(endpoint.distinct()).isEqualTo(499);
        assertThat(endpoint.recordsOf(seven)).anySatisfy(record -> {
            assertThat(record.get("ts").longValue()).isEqualTo(ts3);
            assertThat(record.get("id").asText()).as("the record's own id").isEqualTo(sevensId);
        });
        List<StreamMessage<String, String>> left = redis.xrange("dlq:bridge:http", Range.create("-", "+"));
        assertThat(left).hasSize(1);
        assertThat(left.get(0).getBody()).containsEntry("imei", nine);
    }

    private long pending() {
        return redis.xpending("telemetry", "http").getCount();
    }

    private double gauge(String name) {
        return bridge.registry().find(name).gauge().value();
    }

    private double counter(String name) {
        return bridge.registry().find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    /** {@code /health/ready}: the status and the body. */
    private String readiness() throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + bridge.httpPort() + "/health/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
        return answer.statusCode() + " " + answer.body();
    }
}
