package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.InProcessServers;
import org.fleetpipe.teltonika.simulator.run.RunResult;
import org.junit.jupiter.api.Test;

/**
 * "Acknowledged = stored" up to the consumer: a consumer group exists but its consumer is stopped
 * while the simulator pushes far past the stream's count cap and into its hard cap. Nothing the
 * group has not read is trimmed; past the hard cap the devices get no ACK and the metric, queue
 * health and readiness (still 200) say why; once the consumer resumes, acking resumes by itself, the devices
 * deliver their backlog, and the consumer reads every acknowledged record exactly once, exactly
 * as acknowledged.
 */
@WithRedis
class DeliveryUnderBackpressureIT {

    private static final String TOKEN = "delivery-under-backpressure-token-0123456789";
    private static final int COUNT_CAP = 300;
    private static final int HARD_CAP = 2_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void stoppedConsumer_thenBackpressureNotLoss_andEveryAcknowledgedRecordIsReadAfterwards(RedisFixture redis)
            throws Exception {
        // The consumer's own connection: its XREADGROUP BLOCK must not hold up the test's other calls.
        try (InProcessServers servers = new InProcessServers(redis, Map.of());
             StatefulRedisConnection<String, String> consumerConnection = redis.client().connect()) {
            RedisCommands<String, String> commands = servers.redis();
            commands.xgroupCreate(XReadArgs.StreamOffset.from("telemetry", "0"), "downstream",
                    XGroupCreateArgs.Builder.mkstream());
            // The whole fleet against the stream's cap, not one device against its share of it.
            IngestionServer server = servers.start(Map.of("telemetry.stream-max-len", COUNT_CAP,
                    "telemetry.max-unread", HARD_CAP, "telemetry.retention.interval", "200ms",
                    "telemetry.backpressure.max-hold", "5s", "api-token", TOKEN,
                    "telemetry.backpressure.fair-share-from", 1));
            // 20 devices x 5 records every 100 ms: ~1,000 records/s for 8 s, far past both caps.
            SimulatedFleet fleet = SimulatedFleet.start(server.tcpAddress().getPort(), "--devices", "20",
                    "--interval", "100ms", "--records", "5", "--codec", "mixed", "--duration", "8s",
                    "--ack-timeout", "3s", "--backoff-min", "100ms", "--backoff-max", "1s", "--drain", "90s");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(metric(server, "teltonika_telemetry_backpressure")).isEqualTo(1.0);
                JsonNode stream = streamQueue(server);
                assertThat(stream.get("status").asText()).isEqualTo("unhealthy");
                assertThat(stream.get("backpressure").asBoolean()).isTrue();
                // Still ready: every replica shares the stream, so none would do better.
                HttpResponse<String> ready = get(server, "/health/ready");
                assertThat(ready.statusCode()).isEqualTo(200);
                assertThat(ready.body()).contains("telemetry stream full");
            });
            long lengthWhenFull = commands.xlen("telemetry");
            assertThat(lengthWhenFull).as("far past the count cap, nothing trimmed")
                    .isGreaterThanOrEqualTo(HARD_CAP);
            // While back-pressure holds, acknowledgements stop: at most what was in flight when it engaged.
            int acknowledgedWhenFull = fleet.acknowledged().size();
            await().atMost(Duration.ofSeconds(20)).until(() -> metric(server, "teltonika_telemetry_hold_expired_total")
                    + metric(server, "teltonika_telemetry_held_total") > 20);
            assertThat(metric(server, "teltonika_telemetry_backpressure")).isEqualTo(1.0);
            assertThat(fleet.acknowledged().size()).as("no ACK past the hard cap")
                    .isLessThanOrEqualTo(acknowledgedWhenFull + 20 * 5 * 2);
            assertThat(commands.xlen("telemetry")).isLessThan(HARD_CAP + 1_000L);

            // The consumer resumes and reads until the devices have delivered everything.
            Map<String, String> read = new ConcurrentHashMap<>();
            Set<String> ids = ConcurrentHashMap.newKeySet();
            ConsumerOptions options = ConsumerOptions.parse(new String[] {"--group", "downstream", "--consumer", "c1",
                    "--block", "200ms", "--progress", "0", "--count", "200"});
            TelemetryConsumer consumer = new TelemetryConsumer(consumerConnection.sync(), options, entry -> {
                assertThat(ids.add(entry.getId())).isTrue();
                Map<String, String> body = entry.getBody();
                String key = SimulatedFleet.key(body.get("imei"), Long.parseLong(body.get("ts")));
                assertThat(read.put(key, SimulatedFleet.projection(body))).as("read once: %s", key).isNull();
            }, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            Thread reader = new Thread(consumer::run, "consumer");
            reader.start();

            RunResult result = fleet.finish();
            await().atMost(Duration.ofSeconds(30)).until(() -> read.keySet().containsAll(fleet.acknowledged().keySet()));
            await().atMost(Duration.ofSeconds(10)).until(() -> metric(server, "teltonika_telemetry_backpressure") == 0.0);
            consumer.stop();
            reader.join(10_000);

            Set<String> missing = new HashSet<>(fleet.acknowledged().keySet());
            missing.removeAll(read.keySet());
            System.out.printf("delivery under back-pressure: %d records acknowledged (%d when the cap was reached), "
                            + "%d read by the group, %d missing; stream held %d entries at the cap; %d packets held, "
                            + "%d given up; %d records unacknowledged at the end%n", fleet.acknowledged().size(),
                    acknowledgedWhenFull, read.size(), missing.size(), lengthWhenFull,
                    (long) metric(server, "teltonika_telemetry_held_total"),
                    (long) metric(server, "teltonika_telemetry_hold_expired_total"),
                    result.stats().recordsUnacknowledged());
            assertThat(missing).as("acknowledged records the group never read").isEmpty();
            for (Map.Entry<String, String> record : fleet.acknowledged().entrySet()) {
                assertThat(read.get(record.getKey())).as("%s as acknowledged", record.getKey())
                        .isEqualTo(record.getValue());
            }
            assertThat(result.stats().recordsUnacknowledged()).as("the devices delivered their backlog").isZero();
            assertThat(result.stats().recordsDropped()).isZero();
            assertThat(get(server, "/health/ready").statusCode()).isEqualTo(200);
        }
    }

    private HttpResponse<String> get(IngestionServer server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + path))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode streamQueue(IngestionServer server) throws Exception {
        for (JsonNode q : JSON.readTree(get(server, "/api/v1/health/queues").body()).get("queues")) {
            if (q.get("queue").asText().equals("telemetry-stream")) {
                return q;
            }
        }
        throw new AssertionError("no telemetry-stream queue");
    }

    private double metric(IngestionServer server, String name) throws Exception {
        for (String line : get(server, "/metrics").body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError("no metric " + name);
    }
}
