package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.InProcessServers;
import org.fleetpipe.teltonika.simulator.run.RunResult;
import org.junit.jupiter.api.Test;

/** The reference consumer program against a real server fed by the simulator. */
@WithRedis
class ReferenceConsumerIT {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /** A number of the line as the stream wrote it: plain digits. */
    private static String text(JsonNode number) {
        return number.decimalValue().toPlainString();
    }

    @Test
    void readsEveryAcknowledgedRecordAsTheDeviceSentIt(RedisFixture redis) throws Exception {
        try (InProcessServers servers = new InProcessServers(redis, Map.of())) {
            IngestionServer server = servers.start(Map.of());
            SimulatedFleet fleet = SimulatedFleet.start(server.tcpAddress().getPort(), "--devices", "10",
                    "--interval", "200ms", "--records", "5", "--codec", "mixed", "--duration", "3s");
            RunResult result = fleet.finish();
            assertThat(result.stats().recordsUnacknowledged()).isZero();

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = ReferenceConsumerMain.run(new String[] {"--redis-url", redis.uri(), "--group", "it",
                    "--until-idle", "2s", "--block", "200ms", "--output", "jsonl"}, print(out), print(err));

            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
            Map<String, String> read = new HashMap<>();
            for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
                JsonNode entry = JSON.readTree(line);
                assertThat(entry.get("schema").intValue()).isEqualTo(2);
                assertThat(entry.get("valid").intValue()).as("the simulator's records have a fix and the time")
                        .isEqualTo(1);
                assertThat(entry.get("io").isObject()).as("io embedded as an object").isTrue();
                read.put(SimulatedFleet.key(entry.get("imei").asText(), entry.get("ts").asLong()),
                        SimulatedFleet.projection(Map.of("lat", text(entry.get("lat")), "lon",
                                text(entry.get("lon")), "alt", text(entry.get("alt")), "speed",
                                text(entry.get("speed")), "sat", text(entry.get("sat")), "priority",
                                text(entry.get("priority")))));
                for (String field : List.of("codec", "rx", "instance", "event")) {
                    assertThat(entry.has(field)).as(field).isTrue();
                }
            }
            assertThat(fleet.acknowledged()).isNotEmpty();
            assertThat(read).as("every acknowledged record, as the device sent it").containsAllEntriesOf(
                    fleet.acknowledged());
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("created group it", "done: group=it");
            RedisCommands<String, String> commands = servers.redis();
            assertThat(commands.xpending("telemetry", "it").getCount()).as("all acknowledged").isZero();
        }
    }

    @Test
    void consumerDiesBeforeAcknowledging_thenAnotherOneReclaimsItsEntries(RedisFixture redis) throws Exception {
        try (InProcessServers servers = new InProcessServers(redis, Map.of())) {
            IngestionServer server = servers.start(Map.of());
            SimulatedFleet fleet = SimulatedFleet.start(server.tcpAddress().getPort(), "--devices", "5",
                    "--interval", "200ms", "--records", "4", "--duration", "2s");
            assertThat(fleet.finish().stats().recordsUnacknowledged()).isZero();
            long total = servers.redis().xlen("telemetry");

            // Consumer "crashed" reads a batch and dies before XACK.
            RedisCommands<String, String> commands = servers.redis();
            ConsumerOptions crashed = ConsumerOptions.parse(new String[] {"--group", "g", "--consumer", "crashed",
                    "--max-entries", "1", "--count", "20", "--progress", "0"});
            new TelemetryConsumer(commands, crashed, entry -> {
                throw new IllegalStateException("dies");
            }, print(new ByteArrayOutputStream())).run();
            assertThat(commands.xpending("telemetry", "g").getCount()).isEqualTo(20);

            // Its replacement takes over what it left once it was idle long enough, and reads the rest.
            Map<String, String> read = new HashMap<>();
            ConsumerOptions survivor = ConsumerOptions.parse(new String[] {"--group", "g", "--consumer", "survivor",
                    "--claim-idle", "500ms", "--block", "200ms", "--progress", "0", "--until-idle", "3s"});
            TelemetryConsumer consumer = new TelemetryConsumer(commands, survivor,
                    entry -> read.put(entry.getId(), entry.getBody().get("imei")), print(new ByteArrayOutputStream()));
            ConsumerTotals totals = consumer.run();

            assertThat(totals.claimed()).isEqualTo(20);
            assertThat(read).hasSize((int) total);
            assertThat(commands.xpending("telemetry", "g").getCount()).isZero();
        }
    }

    private static PrintStream print(ByteArrayOutputStream out) {
        return new PrintStream(out, true, StandardCharsets.UTF_8);
    }
}
