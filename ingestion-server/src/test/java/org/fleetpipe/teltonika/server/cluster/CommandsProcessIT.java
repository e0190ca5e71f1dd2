package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.junit.jupiter.api.Test;

/** Commands across two server processes, including SIGKILL of the one that sent a command. */
@WithRedis
class CommandsProcessIT {

    private static final String IMEI = "352093081452251";
    private static final String TOKEN = "commands-process-0123456789abcdef0123456789abcdef";
    private static final String GETINFO_HEX = GoldenVectors.ofKind("command").stream()
            .filter(v -> v.codec().equals("12")).findFirst().orElseThrow().hex().toUpperCase();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    private static Map<String, String> env(RedisFixture redis, String prefix) {
        return Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix, "HEARTBEAT_TTL_MS", "3000",
                "HEARTBEAT_INTERVAL_MS", "1000", "JANITOR_INTERVAL_MS", "1000", "API_TOKEN", TOKEN);
    }

    private CompletableFuture<HttpResponse<String>> post(ServerProcess to, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.httpPort
                        + "/api/v1/devices/" + IMEI + "/commands")).header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void commandViaB_reachesDeviceOnA_andAfterAIsKilledMidCommand_itIsDeliveredAgainViaB(RedisFixture redis)
            throws Exception {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect();
             ServerProcess a = ServerProcess.start(env(redis, "a"));
             ServerProcess b = ServerProcess.start(env(redis, "b"))) {
            DeviceClient onA = DeviceClient.connect(a.tcpPort);
            assertThat(onA.login(IMEI)).isEqualTo(1);

            CompletableFuture<HttpResponse<String>> answered = post(b, "{\"command\":\"getinfo\",\"wait_ms\":20000}");
            assertThat(Hex.of(onA.readFrame())).isEqualTo(GETINFO_HEX);
            onA.send(Frames.command(CommandFrame.codec12Response("first reply")));
            HttpResponse<String> first = answered.get(30, TimeUnit.SECONDS);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(json.readTree(first.body()).get("reply").asText()).isEqualTo("first reply");

            CompletableFuture<HttpResponse<String>> second = post(b, "{\"command\":\"getinfo\",\"wait_ms\":30000}");
            assertThat(Hex.of(onA.readFrame())).as("sent by A, not answered yet").isEqualTo(GETINFO_HEX);
            a.kill();
            assertThat(a.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            onA.close();
            long killedAt = System.nanoTime();

            // The device reconnects, as a real one does, and the load balancer sends it to B.
            DeviceClient onB = DeviceClient.connect(b.tcpPort);
            assertThat(onB.login(IMEI)).isEqualTo(1);
            byte[] again = onB.readFrame();
            long redeliveredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            onB.send(Frames.command(CommandFrame.codec12Response("second reply")));

            assertThat(Hex.of(again)).isEqualTo(GETINFO_HEX);
            HttpResponse<String> done = second.get(40, TimeUnit.SECONDS);
            JsonNode body = json.readTree(done.body());
            assertThat(done.statusCode()).isEqualTo(200);
            assertThat(body.get("reply").asText()).isEqualTo("second reply");
            assertThat(body.get("attempts").asInt()).as("at least once: it reached the device twice").isEqualTo(2);
            assertThat(connection.sync().smembers("commands:inflight-instances"))
                    .as("nothing stays in flight for the dead instance").noneMatch(id -> id.startsWith("a-"));
            System.out.printf("command redelivered %d ms after SIGKILL of its sender (TTL 3000 ms, janitor 1000 ms)%n",
                    redeliveredMs);
            onB.close();
        }
    }
}
