package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Kafka sink against a real broker: keyed by IMEI, each device's records in order in one partition. */
@WithRedis
class KafkaBridgeIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static InProcessKafka kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = new InProcessKafka();
    }

    @AfterAll
    static void stopKafka() throws Exception {
        kafka.close();
    }

    @Test
    void everyRecordIsProduced_keyedByImei_inEachDevicesOrder_andAcknowledgedAfterTheBroker(RedisFixture fixture)
            throws Exception {
        kafka.createTopic("records-order", 6);
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            BridgeSettings settings = BridgeSettingsFixture.kafka(fixture.uri(), "k1", kafka.bootstrapServers(),
                    "records-order");
            try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
                bridge.start();
                new TelemetryEntries(redis, "telemetry").addFleet(50, 40, 0);

                List<ConsumerRecord<String, byte[]>> records = kafka.readAll("records-order", 2000,
                        Duration.ofSeconds(60));
                await().atMost(Duration.ofSeconds(10)).until(() -> redis.xpending("telemetry", "kafka").getCount() == 0);

                assertThat(records).hasSize(2000);
                Map<String, List<Long>> times = new HashMap<>();
                Map<String, Integer> partitionOf = new HashMap<>();
                for (ConsumerRecord<String, byte[]> record : records) {
                    JsonNode json = MAPPER.readTree(record.value());
                    assertThat(record.key()).isEqualTo(json.get("imei").asText());
                    times.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(json.get("ts").longValue());
                    assertThat(partitionOf.computeIfAbsent(record.key(), k -> record.partition()))
                            .as("one partition per device").isEqualTo(record.partition());
                }
                assertThat(times).hasSize(50);
                times.forEach((imei, ts) -> assertThat(ts).as(imei).hasSize(40).isSorted().doesNotHaveDuplicates());
                assertThat(bridge.registry().find("teltonika_bridge_delivered").counter().count()).isEqualTo(2000);
                assertThat(bridge.registry().find("teltonika_bridge_delivery_delay").timer().count())
                        .as("one delay per confirmed record").isEqualTo(2000);
            }
        }
    }

    @Test
    void anInvalidTopic_isRefusingTheBridge_retriedWithoutLimit_nothingDeadLettered(RedisFixture fixture)
            throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            BridgeSettings settings = BridgeSettingsFixture.withShutdownGrace(BridgeSettingsFixture.kafka(
                    fixture.uri(), "k1", kafka.bootstrapServers(), "no such topic!", Map.of("max.block.ms", "2000")),
                    Duration.ofSeconds(1));
            try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
                bridge.start();
                new TelemetryEntries(redis, "telemetry").addFleet(10, 2, 0);

                await().atMost(Duration.ofSeconds(30)).until(() -> retried(bridge) > 0);
                await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6))
                        .until(() -> redis.xlen("dlq:bridge:kafka") == 0 && pending(redis) == 20);
                assertThat(bridge.registry().find("teltonika_bridge_sink_refusing").gauge().value()).isEqualTo(1);
            }
        }
    }

    @Test
    void anUnknownTopic_withAutoCreateOff_isRetried_untilItExists_thenEverythingDelivered(RedisFixture fixture)
            throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            BridgeSettings settings = BridgeSettingsFixture.kafka(fixture.uri(), "k1", kafka.bootstrapServers(),
                    "records-later", Map.of("max.block.ms", "2000"));
            try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
                bridge.start();
                new TelemetryEntries(redis, "telemetry").addFleet(10, 10, 0);
                await().atMost(Duration.ofSeconds(30)).until(() -> retried(bridge) > 0);
                assertThat(redis.xlen("dlq:bridge:kafka")).isZero();

                kafka.createTopic("records-later", 3);
                assertThat(kafka.readAll("records-later", 100, Duration.ofSeconds(60))).hasSize(100);
                await().atMost(Duration.ofSeconds(30)).until(() -> pending(redis) == 0);
                assertThat(redis.xlen("dlq:bridge:kafka")).isZero();
            }
        }
    }

    @Test
    void aRecordTooLarge_isTheOnlyDeadLetter_everyOtherRecordDelivered(RedisFixture fixture) throws Exception {
        kafka.createTopic("records-sized", 3);
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            BridgeSettings settings = BridgeSettingsFixture.kafka(fixture.uri(), "k1", kafka.bootstrapServers(),
                    "records-sized", Map.of("max.request.size", "8192"));
            try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
                bridge.start();
                TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
                entries.addFleet(10, 5, 0);
                String large = entries.addLarge(3, 5, 12_000);
                entries.addFleet(10, 5, 6);

                assertThat(kafka.readAll("records-sized", 100, Duration.ofSeconds(60))).hasSize(100);
                await().atMost(Duration.ofSeconds(30)).until(() -> pending(redis) == 0);
                assertThat(redis.xlen("dlq:bridge:kafka")).isEqualTo(1);
                assertThat(redis.xrange("dlq:bridge:kafka", io.lettuce.core.Range.create("-", "+")).get(0).getBody())
                        .containsEntry("dlq_id", large)
                        .hasEntrySatisfying("dlq_reason", r -> assertThat(r).contains("RecordTooLargeException"));
            }
        }
    }

    private static long pending(RedisCommands<String, String> redis) {
        return redis.xpending("telemetry", "kafka").getCount();
    }

    private static double retried(Bridge bridge) {
        return bridge.registry().find("teltonika_bridge_retried").counter().count();
    }
}
