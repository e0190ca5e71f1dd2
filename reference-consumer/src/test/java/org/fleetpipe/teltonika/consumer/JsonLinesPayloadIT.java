package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Range;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * {@code --output jsonl} prints the bridge's payload byte for byte, with IO names for a device
 * whose model is in the (namespaced) models hash; an entry that is no record is dead-lettered.
 */
@WithRedis
class JsonLinesPayloadIT {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final String NAMED = "352093081452251";
    private static final String UNNAMED = "490154203237518";

    private static Map<String, String> entry(String imei, String io) {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("imei", imei);
        e.put("codec", "8E");
        e.put("ts", "1795502829000");
        e.put("rx", "1795502830415");
        e.put("priority", "0");
        e.put("lat", "54.6872383");
        e.put("lon", "25.28");
        e.put("alt", "120");
        e.put("angle", "90");
        e.put("sat", "9");
        e.put("speed", "40");
        e.put("event", "0");
        e.put("io", io);
        e.put("valid", "1");
        e.put("instance", "ingest-1");
        e.put("schema", "2");
        return e;
    }

    @Test
    void jsonl_isTheBridgePayload_withNamesForAKnownModel(RedisFixture redis) throws Exception {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            commands.hset("fleet-a:devices:models", NAMED, "fmb920");
            Map<String, String> named = entry(NAMED, "{\"66\":12500,\"21\":4,\"78\":18446744073709551615}");
            String namedId = commands.xadd("fleet-a:telemetry", named);
            String unnamedId = commands.xadd("fleet-a:telemetry", entry(UNNAMED, "{\"66\":12500}"));

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = ReferenceConsumerMain.run(new String[] {"--redis-url", redis.uri(), "--stream",
                    "fleet-a:telemetry", "--group", "names", "--until-idle", "1s", "--block", "200ms", "--output",
                    "jsonl"}, print(out), print(err));

            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
            String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
            assertThat(lines).hasSize(2);
            RecordPayload payload = new RecordPayload(IoDictionary.load());
            assertThat(lines[0]).isEqualTo(new String(payload.toJson(namedId, named, "fmb920"), StandardCharsets.UTF_8));
            JsonNode first = JSON.readTree(lines[0]);
            assertThat(first.get("id").asText()).isEqualTo(namedId);
            assertThat(first.get("model").asText()).isEqualTo("fmb920");
            assertThat(first.get("io_named").get("external_voltage").decimalValue()).isEqualByComparingTo("12.5");
            assertThat(first.get("units").get("external_voltage").asText()).isEqualTo("V");
            assertThat(lines[0]).contains("\"ibutton\":18446744073709551615");
            JsonNode second = JSON.readTree(lines[1]);
            assertThat(second.get("id").asText()).isEqualTo(unnamedId);
            assertThat(second.has("model")).isFalse();
            assertThat(second.has("io_named")).isFalse();
            assertThat(second.get("io").get("66").intValue()).isEqualTo(12500);
        }
    }

    @Test
    void entryThatIsNoRecord_goesToTheDeadLetters_theOthersArePrinted(RedisFixture redis) throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (StatefulRedisConnection<String, String> consumerConnection = redis.client().connect();
             StatefulRedisConnection<String, String> testConnection = redis.client().connect()) {
            RedisCommands<String, String> commands = testConnection.sync();
            commands.xadd("telemetry", entry(NAMED, "{\"21\":4}"));
            Map<String, String> bad = entry(UNNAMED, "{\"21\":4}");
            bad.put("speed", "fast");
            String poison = commands.xadd("telemetry", bad);
            commands.xadd("telemetry", entry(UNNAMED, "{\"21\":5}"));

            ConsumerOptions options = ConsumerOptions.parse(new String[] {"--group", "g", "--consumer", "c1",
                    "--claim-idle", "100ms", "--block", "100ms", "--progress", "0", "--max-deliveries", "2",
                    "--output", "jsonl"});
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            RedisCommands<String, String> consumerRedis = consumerConnection.sync();
            JsonLinesHandler handler = new JsonLinesHandler(print(out), new RecordPayload(IoDictionary.load()),
                    new DeviceModelCache(new RedisModelLookup(consumerRedis, options.modelsHash())));
            TelemetryConsumer consumer = new TelemetryConsumer(consumerRedis, options, handler,
                    print(new ByteArrayOutputStream()));
            Future<ConsumerTotals> run = thread.submit(consumer::run);

            await().atMost(Duration.ofSeconds(20)).until(() -> commands.xlen("dlq:consumer:g") == 1
                    && commands.xpending("telemetry", "g").getCount() == 0);
            consumer.stop();
            assertThat(run.get(20, TimeUnit.SECONDS).deadLettered()).isEqualTo(1);

            assertThat(out.toString(StandardCharsets.UTF_8).split("\n")).hasSize(2);
            List<io.lettuce.core.StreamMessage<String, String>> dead = commands.xrange("dlq:consumer:g",
                    Range.create("-", "+"));
            assertThat(dead.get(0).getBody()).containsEntry("dlq_id", poison).containsEntry("speed", "fast");
            assertThat(dead.get(0).getBody().get("dlq_error")).contains("MalformedEntryException",
                    "speed is not a number");
        } finally {
            thread.shutdownNow();
        }
    }

    private static PrintStream print(ByteArrayOutputStream to) {
        return new PrintStream(to, true, StandardCharsets.UTF_8);
    }
}
