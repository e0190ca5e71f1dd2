package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufUtil;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.InProcessServers;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Support captures over real HTTP, real device sockets and a real Redis, with two servers: the
 * devices connect to {@code a}, the operator talks to {@code b}, so every capture that reaches a
 * device went through Redis (the capture key at login, the 'capture' event for a device connected
 * already).
 */
@WithRedis
class CaptureIT {

    private static final String TOKEN = "capture-operator-token-0123456789abcdef";
    private static final String READER = "capture-reader-token-0123456789abcdef01";
    private static final int MAX_BYTES = 4096;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private InProcessServers cluster;
    private IngestionServer a;
    private IngestionServer b;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        cluster = new InProcessServers(redis, Map.of("api-token", TOKEN, "api-token-read", READER,
                "capture.max-captures", 3, "capture.max-bytes", MAX_BYTES, "capture.max-duration", "1h"));
        a = cluster.start(Map.of());
        b = cluster.start(Map.of());
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private static byte[] avl() {
        return GoldenVectors.all().stream().filter(v -> v.name().equals("codec8-example-3")).findFirst().orElseThrow()
                .bytes();
    }

    private HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + b.httpAddress().getPort() + "/api/v1/devices/" + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        request.header("Authorization", "Bearer " + token);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode startCapture(String imei, String duration) throws Exception {
        HttpResponse<String> started = call("POST", imei + "/capture", TOKEN, "{\"duration\":\"" + duration + "\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(200);
        return json.readTree(started.body());
    }

    private JsonNode capture(String imei) throws Exception {
        HttpResponse<String> read = call("GET", imei + "/capture?limit=1000", TOKEN, null);
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        return json.readTree(read.body());
    }

    /** dir, hex and outcome of each entry, oldest first. */
    private List<String> entries(String imei) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode entry : capture(imei).path("entries")) {
            out.add(entry.path("dir").asText() + " " + entry.path("hex").asText() + " " + entry.path("outcome").asText());
        }
        return out;
    }

    @Test
    void captureStartedBeforeTheLogin_holdsEveryFrameFromTheLoginOn_oldestFirst_untilDeleted() throws Exception {
        String imei = TestImeis.numbered(701);
        long before = System.currentTimeMillis();
        JsonNode started = startCapture(imei, "10m");
        assertThat(started.path("active").asBoolean()).isTrue();
        assertThat(started.path("instance").isNull()).as("not connected yet").isTrue();
        assertThat(started.path("until").asLong()).isBetween(before + 600_000, System.currentTimeMillis() + 600_000);
        assertThat(cluster.redis().pttl("capture:active:" + imei)).isBetween(1L, 600_000L);
        byte[] avl = avl();

        try (DeviceClient device = cluster.connect(a)) {
            device.send(new byte[] {(byte) 0xFF});
            assertThat(device.login(imei)).isEqualTo(1);
            assertThat(device.sendAndReadAck(avl)).isEqualTo(2);
            device.send(new byte[] {(byte) 0xFF});
            assertThat(device.sendAndReadAck(avl)).isEqualTo(2);

            String avlHex = ByteBufUtil.hexDump(avl);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(entries(imei)).containsExactly(
                    "in " + ByteBufUtil.hexDump(Frames.login(imei)) + " received login",
                    "out 01 login accepted",
                    "in " + avlHex + " received codec 8",
                    "out 00000002 acknowledged 2",
                    "in ff received keep-alive",
                    "in " + avlHex + " received codec 8",
                    "out 00000002 acknowledged 2"));
            JsonNode read = capture(imei);
            assertThat(read.path("active").asBoolean()).isTrue();
            assertThat(read.path("more").asBoolean()).isFalse();
            List<Long> ats = new ArrayList<>();
            read.path("entries").forEach(e -> ats.add(e.path("at").asLong()));
            assertThat(ats).isSorted().allSatisfy(at -> assertThat(at).isBetween(before, System.currentTimeMillis()));
            assertThat(read.path("entries").get(0).path("id").asText()).matches("\\d+-\\d+");
            long streamTtl = cluster.redis().pttl("capture:" + imei);
            assertThat(streamTtl).as("kept CAPTURE_RETENTION after the end")
                    .isBetween(24 * 3_600_000L, 24 * 3_600_000L + 600_000L);
            JsonNode page = json.readTree(call("GET", imei + "/capture?limit=2&after="
                    + read.path("entries").get(1).path("id").asText(), TOKEN, null).body());
            assertThat(page.path("entries")).extracting(e -> e.path("outcome").asText())
                    .containsExactly("received codec 8", "acknowledged 2");
            assertThat(page.path("more").asBoolean()).isTrue();

            HttpResponse<String> deleted = call("DELETE", imei + "/capture", TOKEN, null);
            assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.gauge(a, "teltonika.captures.active") == 0);
            assertThat(device.sendAndReadAck(avl)).isEqualTo(2);
            device.send(new byte[] {(byte) 0xFF});
            assertThat(device.sendAndReadAck(avl)).isEqualTo(2);
        }
        JsonNode after = capture(imei);
        assertThat(after.path("active").asBoolean()).isFalse();
        assertThat(after.path("until").isNull()).isTrue();
        assertThat(after.path("entries")).hasSize(7);
        assertThat(cluster.redis().pttl("capture:" + imei)).as("CAPTURE_RETENTION from the stop")
                .isBetween(24 * 3_600_000L - 60_000L, 24 * 3_600_000L);
        assertThat(call("DELETE", imei + "/capture", TOKEN, null).statusCode()).isEqualTo(404);
    }

    @Test
    void deviceConnectedOnAnotherInstance_isCapturedAtOnce_throughTheEvent() throws Exception {
        String imei = TestImeis.numbered(702);
        try (DeviceClient device = cluster.connect(a)) {
            assertThat(device.login(imei)).isEqualTo(1);
            assertThat(device.sendAndReadAck(avl())).isEqualTo(2);

            JsonNode started = startCapture(imei, "5m");
            assertThat(started.path("instance").asText()).isEqualTo(a.instanceId());
            await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.gauge(a, "teltonika.captures.active") == 1);
            assertThat(ServerMeters.gauge(b, "teltonika.captures.active")).isZero();
            device.send(new byte[] {(byte) 0xFF});
            assertThat(device.sendAndReadAck(avl())).isEqualTo(2);

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(entries(imei)).extracting(
                    e -> e.substring(e.lastIndexOf(' ') + 1)).containsExactly("keep-alive", "8", "2"));
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(entries(imei)).last().asString()
                .isEqualTo("in  closed peer-closed"));
        assertThat(a.metrics().registry().find("teltonika.capture.entries.written").counter().count())
                .isGreaterThanOrEqualTo(4);
    }

    @Test
    void byteCap_stopsTheCapture_withALastEntrySayingSo_andTheDeviceIsServedOn() throws Exception {
        String imei = TestImeis.numbered(703);
        startCapture(imei, "10m");
        try (DeviceClient device = cluster.connect(a)) {
            assertThat(device.login(imei)).isEqualTo(1);
            // Each packet and its ACK cost about 250 bytes against the cap of 4096.
            for (int i = 0; i < 40; i++) {
                assertThat(device.sendAndReadAck(avl())).isEqualTo(2);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.gauge(a, "teltonika.captures.active") == 0);
        }
        JsonNode read = capture(imei);
        assertThat(read.path("active").asBoolean()).isFalse();
        JsonNode entries = read.path("entries");
        assertThat(entries.get(entries.size() - 1).path("outcome").asText())
                .isEqualTo("capture stopped: CAPTURE_MAX_BYTES (" + MAX_BYTES + ") reached");
        long stored = 0;
        for (JsonNode e : entries) {
            stored += e.path("hex").asText().length() + e.path("outcome").asText().length() + 48;
        }
        assertThat(stored).isLessThanOrEqualTo(MAX_BYTES + 200);
        assertThat(ServerMeters.count(a, "teltonika.capture.stopped", "reason", "max-bytes")).isEqualTo(1);
        assertThat(cluster.redis().zscore("captures:active", imei)).isNull();
    }

    @Test
    void refusals_maxCaptures_durations_andTheReadToken() throws Exception {
        for (int i = 0; i < 3; i++) {
            startCapture(TestImeis.numbered(710 + i), "1m");
        }
        HttpResponse<String> full = call("POST", TestImeis.numbered(713) + "/capture", TOKEN, "{\"duration\":\"1m\"}");
        assertThat(full.statusCode()).isEqualTo(429);
        assertThat(json.readTree(full.body()).path("error").asText()).isEqualTo("too-many-captures");
        assertThat(startCapture(TestImeis.numbered(710), "2m").path("active").asBoolean())
                .as("one active already may get a new end").isTrue();
        assertThat(call("DELETE", TestImeis.numbered(711) + "/capture", TOKEN, null).statusCode()).isEqualTo(200);
        startCapture(TestImeis.numbered(713), "1m");

        String imei = TestImeis.numbered(714);
        String[][] bad = {{"{\"duration\":\"2h\"}", "duration-too-long"}, {"{\"duration\":\"61m\"}", "duration-too-long"},
            {"{\"duration\":\"soon\"}", "bad-duration"}, {"{\"duration\":\"10\"}", "bad-duration"},
            {"{\"duration\":600}", "bad-duration"}, {"{}", "bad-duration"}, {"{\"duration\":\"0s\"}", "bad-duration"},
            {"[]", "bad-json"}, {"{\"duration\":\"1m\",\"x\":1}", "unknown-field"}};
        for (String[] one : bad) {
            HttpResponse<String> refused = call("POST", imei + "/capture", TOKEN, one[0]);
            assertThat(refused.statusCode()).as(one[0]).isEqualTo(400);
            assertThat(json.readTree(refused.body()).path("error").asText()).as(one[0]).isEqualTo(one[1]);
        }
        assertThat(cluster.redis().exists("capture:active:" + imei)).isZero();

        assertThat(call("POST", imei + "/capture", READER, "{\"duration\":\"1m\"}").statusCode()).isEqualTo(403);
        assertThat(call("DELETE", TestImeis.numbered(710) + "/capture", READER, null).statusCode()).isEqualTo(403);
        assertThat(call("GET", TestImeis.numbered(710) + "/capture", READER, null).statusCode())
                .as("a capture holds raw frames: the operator token only").isEqualTo(403);
        assertThat(call("GET", TestImeis.numbered(710) + "/capture", TOKEN, null).statusCode()).isEqualTo(200);
        assertThat(call("GET", imei + "/capture", TOKEN, null).statusCode()).isEqualTo(404);
    }
}
