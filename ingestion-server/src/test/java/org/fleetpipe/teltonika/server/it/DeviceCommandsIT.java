package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 43 item 3, through the real server, a real device socket and a real Redis: a device's
 * queued, in-flight and finished commands listed newest first and paged, masked for the read-only
 * token as {@code GET /api/v1/commands/{id}} masks; and the queue health naming the stuck devices,
 * oldest first, in its report and in the hash {@code health:queues}.
 */
@WithRedis
class DeviceCommandsIT {

    private static final String TOKEN = "device-commands-it-0123456789abcdef0123456789";
    private static final String READER = "device-commands-reader-0123456789abcdef012345";
    private static final String SECRET = "setparam 2002:apnuser;2003:apn-secret-pw";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private IngestionServer server;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void start(RedisFixture fixture) throws Exception {
        server = ItServer.start(fixture, false, Map.of("api-token", TOKEN, "api-token-read", READER,
                "ops.queue-health.interval", "200ms", "ops.queue-health.stuck-after", "1s"));
        connection = fixture.client().connect();
        redis = connection.sync();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        server.close();
    }

    private HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                        + path)).header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(30)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode ok(String method, String path, String token, String body) throws Exception {
        HttpResponse<String> response = call(method, path, token, body);
        assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isBetween(200, 299);
        return json.readTree(response.body());
    }

    private static List<String> field(JsonNode commands, String name) {
        List<String> out = new ArrayList<>();
        commands.forEach(c -> out.add(c.path(name).asText()));
        return out;
    }

    @Test
    void deviceCommands_queuedInFlightAndFinished_newestFirst_paged_andMaskedForTheReadToken() throws Exception {
        String imei = TestImeis.numbered(4330);
        String list = "/api/v1/devices/" + imei + "/commands";
        String replied;
        String sent;
        String queued;
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(imei)).isEqualTo(1);
            CompletableFuture<Void> answered = CompletableFuture.runAsync(() -> {
                try {
                    device.readFrame();
                    device.send(Frames.command(CommandFrame.codec12Response("New value 2002:apnuser;2003:apn-secret-pw")));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            replied = ok("POST", list, TOKEN, "{\"command\":\"" + SECRET + "\",\"wait_ms\":20000}").path("id").asText();
            answered.join();
            sent = ok("POST", list, TOKEN, "{\"command\":\"getinfo\"}").path("id").asText();
            device.readFrame(); // and never answers: in flight
            queued = ok("POST", list, TOKEN, "{\"command\":\"getver\"}").path("id").asText();

            JsonNode all = ok("GET", list, TOKEN, null);
            assertThat(all.path("imei").asText()).isEqualTo(imei);
            assertThat(field(all.path("commands"), "id")).containsExactly(queued, sent, replied);
            assertThat(field(all.path("commands"), "status")).containsExactly("queued", "sent", "replied");
            assertThat(all.path("commands").get(2).path("command").asText()).isEqualTo(SECRET);
            assertThat(all.path("commands").get(2).path("reply").asText()).contains("apn-secret-pw");
            assertThat(all.path("more").asBoolean()).isFalse();

            JsonNode masked = ok("GET", list, READER, null).path("commands").get(2);
            JsonNode one = ok("GET", "/api/v1/commands/" + replied, READER, null);
            assertThat(masked.toString()).doesNotContain("apn-secret-pw").doesNotContain("apnuser");
            assertThat(masked.path("command")).isEqualTo(one.path("command"));
            assertThat(masked.path("reply")).isEqualTo(one.path("reply"));
            assertThat(masked.path("command").asText()).startsWith("setparam 2002:");

            JsonNode first = ok("GET", list + "?limit=2", TOKEN, null);
            assertThat(field(first.path("commands"), "id")).containsExactly(queued, sent);
            assertThat(first.path("more").asBoolean()).isTrue();
            JsonNode second = ok("GET", list + "?limit=2&before=" + sent, TOKEN, null);
            assertThat(field(second.path("commands"), "id")).containsExactly(replied);
            assertThat(second.path("more").asBoolean()).isFalse();
            HttpResponse<String> unknown = call("GET", list + "?before=no-such-command", TOKEN, null);
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(unknown.body()).contains("bad-query");
        }
        // Kept as long as its newest command can live: its TTL (1 h), a reply wait and COMMAND_RETENTION (7 d).
        assertThat(redis.pttl("commands:device:" + imei)).isBetween(7 * 86_400_000L, 7 * 86_400_000L + 3_700_000L);
        JsonNode other = ok("GET", "/api/v1/devices/" + TestImeis.numbered(4339) + "/commands", TOKEN, null);
        assertThat(other.path("commands").size()).isZero();
    }

    @Test
    void queueHealth_namesTheStuckDevices_oldestFirst_inItsReportAndInTheHash() throws Exception {
        // Online on an instance that is alive but never takes their commands: due and not moving.
        redis.hset("instance:heartbeat:ghost-1", "host", "nowhere");
        redis.expire("instance:heartbeat:ghost-1", 600);
        String older = TestImeis.numbered(4331);
        String newer = TestImeis.numbered(4332);
        String olderCommand = ok("POST", "/api/v1/devices/" + older + "/commands", TOKEN, "{\"command\":\"getinfo\"}")
                .path("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis()
                - Long.parseLong(redis.hget("command:" + olderCommand, "created_at")) > 100);
        String newerCommand = ok("POST", "/api/v1/devices/" + newer + "/commands", TOKEN, "{\"command\":\"getinfo\"}")
                .path("id").asText();
        redis.hset("connections:registry", Map.of(older, "ghost-1", newer, "ghost-1"));

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            JsonNode pending = null;
            for (JsonNode q : ok("GET", "/api/v1/health/queues", READER, null).path("queues")) {
                if (q.path("queue").asText().equals("pending-commands")) {
                    pending = q;
                }
            }
            assertThat(pending).isNotNull();
            assertThat(pending.path("stuck").asLong()).isEqualTo(2);
            assertThat(field(pending.path("stuck_devices"), "imei")).containsExactly(older, newer);
            assertThat(field(pending.path("stuck_devices"), "command")).containsExactly(olderCommand, newerCommand);
            assertThat(pending.path("stuck_devices").get(0).path("age_ms").asLong()).isGreaterThan(1_000);
        });
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            JsonNode stored = json.readTree(redis.hget("health:queues", "pending-commands"));
            assertThat(field(stored.path("stuck_devices"), "imei")).containsExactly(older, newer);
        });
        JsonNode inFlight = json.readTree(redis.hget("health:queues", "inflight-commands"));
        assertThat(inFlight.path("stuck_devices").isArray()).isTrue();
    }
}
