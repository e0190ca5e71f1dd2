package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The on-call endpoints against a running server and a real Redis. */
@WithRedis
class OpsIT {

    private static final String TOKEN = "ops-0123456789abcdef0123456789abcdef";
    private static final String IMEI = "352093081452251";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private IngestionServer server;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    private RedisFixture fixture;

    @BeforeEach
    void start(RedisFixture fixture) throws Exception {
        this.fixture = fixture;
        connection = fixture.client().connect();
        redis = connection.sync();
        server = new IngestionServer(SettingsLoader.load(settings(Map.of()))).start();
    }

    private Map<String, Object> settings(Map<String, Object> more) {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", fixture.uri(), "tcp-port", 0,
                "udp-port", 0, "http-port", 0, "bind-address", "127.0.0.1", "api-token", TOKEN,
                "ops.queue-health.interval", "200ms", "ops.queue-health.stuck-after", "1s",
                "commands.reply-timeout", "300ms", "commands.sweep-interval", "1h"));
        settings.put("health-port", 0);
        // No scheduled purge within a test unless it asks for one: a pass would remove the old dead letters it seeds.
        settings.put("ops.purge.interval", "1h");
        settings.put("ops.queue-health.degraded-stuck", "1");
        settings.putAll(more);
        return settings;
    }

    private String metrics() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        connection.close();
    }

    private JsonNode call(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                        + path)).header("Authorization", "Bearer " + TOKEN)
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("{\"command\":\"getinfo\"}")
                        : HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isBetween(200, 299);
        return json.readTree(response.body());
    }

    private JsonNode queue(String name) throws Exception {
        for (JsonNode q : call("GET", "/api/v1/health/queues").get("queues")) {
            if (q.get("queue").asText().equals(name)) {
                return q;
            }
        }
        throw new AssertionError("no queue " + name);
    }

    @Test
    void queueHealth_seesACommandForAnOfflineDevice_asWaitingNotStuck_thenOnline_asStuck_andDegraded() throws Exception {
        assertThat(call("GET", "/api/v1/health/queues").get("status").asText()).isEqualTo("healthy");

        call("POST", "/api/v1/devices/" + IMEI + "/commands");

        // Offline: queued and ageing past stuck-after (1 s), never stuck.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode pending = queue("pending-commands");
            assertThat(pending.get("size").asLong()).isEqualTo(1);
            assertThat(pending.get("oldest_age_ms").asLong()).isGreaterThan(1500);
        });
        JsonNode offline = queue("pending-commands");
        assertThat(offline.get("stuck").asLong()).isZero();
        assertThat(offline.get("due").asLong()).isZero();
        assertThat(offline.get("status").asText()).isEqualTo("healthy");

        // Online on an instance that is alive (a heartbeat) but never takes the command: due and not moving.
        redis.hset("instance:heartbeat:ghost-1", "host", "nowhere");
        redis.expire("instance:heartbeat:ghost-1", 600);
        redis.hset("connections:registry", IMEI, "ghost-1");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode pending = queue("pending-commands");
            assertThat(pending.get("stuck").asLong()).isEqualTo(1);
            assertThat(pending.get("due").asLong()).isEqualTo(1);
            assertThat(pending.get("status").asText()).isEqualTo("degraded");
            assertThat(pending.get("reason").asText()).isEqualTo("1 stuck >= 1");
        });
        assertThat(call("GET", "/api/v1/health/queues").get("status").asText()).isEqualTo("degraded");
        String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.httpAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).containsPattern("(?m)^teltonika_queue_status\\{queue=\"pending-commands\"} 1\\.0$");
        assertThat(metrics).containsPattern("(?m)^teltonika_queue_stuck\\{queue=\"pending-commands\"} 1\\.0$");
        await().atMost(Duration.ofSeconds(10)).until(() -> "degraded".equals(redis.hget("health:queues", "status")));
    }

    @Test
    void queueHealthDisabled_theReportShowsTheStreamOnly_withComputedAt0_andHealthQueuesIsNeverWritten()
            throws Exception {
        server.close();
        redis.del("health:queues");
        server = new IngestionServer(SettingsLoader.load(settings(Map.of("ops.queue-health.enabled", false)))).start();
        call("POST", "/api/v1/devices/" + IMEI + "/commands");
        redis.hset("instance:heartbeat:ghost-1", "host", "nowhere");
        redis.expire("instance:heartbeat:ghost-1", 600);
        redis.hset("connections:registry", IMEI, "ghost-1");

        // Ten intervals (200 ms) in which an enabled job would have computed and written.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode report = call("GET", "/api/v1/health/queues");
            assertThat(report.get("computed_at").asLong()).isZero();
            assertThat(report.get("status").asText()).isEqualTo("healthy");
            assertThat(report.get("queues")).singleElement()
                    .satisfies(q -> assertThat(q.get("queue").asText()).isEqualTo("telemetry-stream"));
            assertThat(redis.exists("health:queues")).isZero();
        });
        String metrics = metrics();
        assertThat(metrics).containsPattern("(?m)^teltonika_queue_health 0\\.0$");
        assertThat(metrics).containsPattern("(?m)^teltonika_queue_stuck\\{queue=\"pending-commands\"} 0\\.0$");
    }

    @Test
    void deadLetters_ofFramesAndCommands_areReadable_withLimitAndSince() throws Exception {
        long before = System.currentTimeMillis();
        try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
            assertThat(device.login(IMEI)).isEqualTo(1);
            device.send(Frames.withBadCrc(GoldenVectors.ofKind("avl").get(0).bytes()));
            assertThat(device.readUntilClosed()).isEmpty();
        }
        try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
            assertThat(device.login(IMEI)).isEqualTo(1);
            call("POST", "/api/v1/devices/" + IMEI + "/commands");
            device.readFrame();
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.zcard("dlq:commands") == 1);
        }

        JsonNode frames = call("GET", "/api/v1/dlq/frames?limit=10&since=" + before).get("entries");
        assertThat(frames).hasSize(1);
        assertThat(frames.get(0).get("reason").asText()).isEqualTo("bad-crc");
        assertThat(frames.get(0).get("imei").asText()).isEqualTo(IMEI);
        JsonNode commands = call("GET", "/api/v1/dlq/commands").get("entries");
        assertThat(commands.get(0).get("reason").asText()).isEqualTo("timeout");
        assertThat(call("GET", "/api/v1/dlq/frames?since=" + (System.currentTimeMillis() + 60_000)).get("entries"))
                .isEmpty();
    }

    @Test
    void deadLettersDisabled_aRefusedFrameIsCountedNotStored_whileCommandFailuresStillAre() throws Exception {
        server.close();
        server = new IngestionServer(SettingsLoader.load(settings(Map.of("dead-letters.enabled", false)))).start();

        try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
            assertThat(device.login(IMEI)).isEqualTo(1);
            device.send(Frames.withBadCrc(GoldenVectors.ofKind("avl").get(0).bytes()));
            assertThat(device.readUntilClosed()).isEmpty();
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(metrics()).containsPattern(
                "(?m)^teltonika_dead_letters_dropped_total\\{reason=\"disabled\"} 1\\.0$"));
        assertThat(redis.zcard("dlq:frames")).isZero();
        try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
            assertThat(device.login(IMEI)).isEqualTo(1);
            call("POST", "/api/v1/devices/" + IMEI + "/commands");
            device.readFrame();
            // Never answered: the reply timeout fails it, into its hash and dlq:commands all the same.
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.zcard("dlq:commands") == 1);
        }
    }

    @Test
    void purge_byDefaultScheduledPassesRemoveDeadLettersPastTheirTtl_andOnlyCountOrphans() throws Exception {
        server.close();
        long old = System.currentTimeMillis() - Duration.ofDays(30).toMillis();
        redis.zadd("dlq:frames", old, "{\"reason\":\"bad-crc\",\"at\":" + old + "}");
        redis.hset("command:lost-1", Map.of("id", "lost-1", "imei", IMEI, "codec", "12", "command", "getinfo",
                "status", "queued", "history", "[]", "expires_at", Long.toString(System.currentTimeMillis() + 3600_000)));
        server = new IngestionServer(SettingsLoader.load(settings(Map.of("ops.purge.interval", "200ms")))).start();

        await().atMost(Duration.ofSeconds(10)).until(() -> redis.zcard("dlq:frames") == 0);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(metrics()).containsPattern(
                "(?m)^teltonika_purge_removed_total\\{mode=\"dry-run\",what=\"orphaned-command\"} [1-9]"));
        assertThat(metrics()).containsPattern(
                "(?m)^teltonika_purge_removed_total\\{mode=\"live\",what=\"frame-dead-letter\"} 1\\.0$");
        assertThat(redis.hget("command:lost-1", "status")).isEqualTo("queued");
    }

    @Test
    void purge_dryRunReportsAndChangesNothing_thenThePurgeRemovesAndFailsIntoTheDeadLetters() throws Exception {
        long old = System.currentTimeMillis() - Duration.ofDays(30).toMillis();
        redis.zadd("dlq:frames", old, "{\"reason\":\"bad-crc\",\"at\":" + old + "}");
        redis.zadd("dlq:frames", System.currentTimeMillis(), "{\"reason\":\"bad-crc\",\"fresh\":true}");
        // A queued command whose queue entry was lost: nothing would ever deliver it.
        redis.hset("command:lost-1", Map.of("id", "lost-1", "imei", IMEI, "codec", "12", "command", "getinfo",
                "status", "queued", "history", "[]", "expires_at", Long.toString(System.currentTimeMillis() + 3600_000)));
        // A queued command whose TTL passed while the device was offline: the command sweep's, not the purge's.
        call("POST", "/api/v1/devices/" + IMEI + "/commands");
        String expiring = redis.lrange("commands:queue:" + IMEI, 0, 0).get(0);
        redis.hset("command:" + expiring, "expires_at", Long.toString(System.currentTimeMillis() - 1));

        JsonNode dry = call("POST", "/api/v1/purge?dry_run=true");

        assertThat(dry.get("dry_run").asBoolean()).isTrue();
        assertThat(dry.get("frame_dead_letters_past_ttl").asLong()).isEqualTo(1);
        assertThat(dry.get("orphaned_commands").asLong()).isEqualTo(1);
        assertThat(dry.get("expired_commands").asLong()).as("kept in the answer, always 0").isZero();
        assertThat(redis.zcard("dlq:frames")).isEqualTo(2);
        assertThat(redis.hget("command:lost-1", "status")).isEqualTo("queued");
        assertThat(redis.llen("commands:queue:" + IMEI)).isEqualTo(1);
        assertThat(redis.zcard("dlq:commands")).isZero();

        JsonNode done = call("POST", "/api/v1/purge");

        assertThat(done.get("dry_run").asBoolean()).isFalse();
        assertThat(done.get("frame_dead_letters_past_ttl").asLong()).isEqualTo(1);
        assertThat(redis.zcard("dlq:frames")).isEqualTo(1);
        assertThat(redis.hget("command:lost-1", "reason")).isEqualTo("orphaned");
        assertThat(done.get("expired_commands").asLong()).isZero();
        assertThat(redis.hget("command:" + expiring, "status")).as("TTL expiry is the command sweep's")
                .isEqualTo("queued");
        assertThat(redis.zcard("dlq:commands")).isEqualTo(1);
        assertThat(call("POST", "/api/v1/purge?dry_run=true").get("orphaned_commands").asLong()).isZero();
    }
}
