package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Hostile HTTP: oversized parts and malformed bodies get a 4xx in the error shape, never internals. */
@WithRedis
class HttpHardeningIT {

    private static final String TOKEN = "http-hardening-0123456789abcdef0123456789abcdef";

    private IngestionServer server;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(), "tcp-port", 0,
                "udp-port", 0, "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1", "api-token", TOKEN))).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private String raw(String request) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.httpAddress().getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String post(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                + "\r\n\r\n" + body;
    }

    private static void assertNoInternals(String answer) {
        assertThat(answer).doesNotContain("org.fleetpipe").doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void oversizedRequestLine_is400WithTheErrorShape() throws Exception {
        String answer = raw("GET /health/live?" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n");

        assertThat(answer).startsWith("HTTP/1.1 400").contains("\"error\":\"bad-request\"");
        assertNoInternals(answer);
    }

    @Test
    void oversizedHeaders_are400() throws Exception {
        String answer = raw("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(20_000) + "\r\n\r\n");

        assertThat(answer).startsWith("HTTP/1.1 400");
        assertNoInternals(answer);
    }

    @Test
    void oversizedBody_isRefused() throws Exception {
        // The declared length is enough to refuse; the body is never buffered.
        String answer = raw("POST /api/v1/admission/allowed HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{\"add\":[");

        assertThat(answer).startsWith("HTTP/1.1 413");
    }

    @Test
    void malformedJsonAndWrongTypes_are400WithTheErrorShape() throws Exception {
        String path = "/api/v1/devices/352093081452251/commands";
        for (String body : new String[] {"{", "[]", "{\"command\": 42}", "{\"command\":\"getinfo\",\"codec\":\"x\"}",
                "{\"command\":\"getinfo\",\"wait_ms\":\"soon\"}", "{\"command\":\"getinfo\",\"ttl_ms\":[1]}",
                "\u0000\u0001garbage"}) {
            String answer = raw(post(path, body));
            assertThat(answer).as(body).startsWith("HTTP/1.1 400").contains("\"error\":").contains("\"message\":");
            assertNoInternals(answer);
        }
        String answer = raw(post("/api/v1/admission/denied", "{\"add\":[{\"x\":1}]}"));
        assertThat(answer).startsWith("HTTP/1.1 400").contains("bad-imei");
    }

    @Test
    void jsonFieldsOfTheWrongType_unknownOrTwice_are400NamingTheField() throws Exception {
        String commands = "/api/v1/devices/352093081452251/commands";
        String[][] cases = {
            {"{\"command\":\"getinfo\",\"wait_ms\":true}", "bad-wait"},
            {"{\"command\":\"getinfo\",\"wait_ms\":\"1000\"}", "bad-wait"},
            {"{\"command\":\"getinfo\",\"wait_ms\":null}", "bad-wait"},
            {"{\"command\":\"getinfo\",\"wait_ms\":1.5}", "bad-wait"},
            {"{\"command\":\"getinfo\",\"codec\":\"14\"}", "bad-codec"},
            {"{\"command\":\"getinfo\",\"codec\":12.9}", "bad-codec"},
            {"{\"command\":\"getinfo\",\"codec\":12.0}", "bad-codec"},
            {"{\"command\":\"getinfo\",\"codec\":true}", "bad-codec"},
            {"{\"command\":\"getinfo\",\"codec\":13}", "bad-codec"},
            {"{\"command\":\"getinfo\",\"ttl_ms\":\"3600000\"}", "bad-ttl"},
            {"{\"command\":\"getinfo\",\"ttl_ms\":1e6}", "bad-ttl"},
            {"{\"command\":\"getinfo\",\"max_attempts\":2.5}", "bad-max-attempts"},
            {"{\"command\":[\"getinfo\"]}", "bad-command"},
            {"{\"command\":\"getinfo\",\"wait\":1000}", "unknown-field"},
            {"{\"command\":\"getinfo\",\"codec\":12,\"codec\":14}", "bad-json"},
            {"{\"command\":\"getinfo\"} {}", "bad-json"},
        };
        for (String[] c : cases) {
            assertThat(raw(post(commands, c[0]))).as(c[0]).startsWith("HTTP/1.1 400")
                    .contains("\"error\":\"" + c[1] + "\"").contains("\"message\":");
        }
        assertThat(raw(post(commands, "{\"command\":\"getinfo\",\"codec\":14,\"wait_ms\":0,\"ttl_ms\":60000,"
                + "\"max_attempts\":1}"))).as("every field, each of its type").startsWith("HTTP/1.1 202");

        String[][] bulk = {
            {"{\"add\":[352093081452251]}", "bad-imei"},
            {"{\"add\":\"352093081452251\"}", "bad-json"},
            {"{\"add\":null}", "bad-json"},
            {"{\"remove\":[\"352093081452251\", true]}", "bad-imei"},
            {"{\"add\":[],\"drop\":[]}", "unknown-field"},
            {"{\"add\":[],\"add\":[\"352093081452251\"]}", "bad-json"},
        };
        for (String[] c : bulk) {
            assertThat(raw(post("/api/v1/admission/denied", c[0]))).as(c[0]).startsWith("HTTP/1.1 400")
                    .contains("\"error\":\"" + c[1] + "\"");
        }
        assertThat(raw(post("/api/v1/admission/denied", "{\"add\":[\"352093081452251\"],\"remove\":[]}")))
                .startsWith("HTTP/1.1 200").contains("\"added\":1");
        assertThat(raw(post("/api/v1/purge?dry_run=1", ""))).as("dry_run=1 must not purge for real")
                .startsWith("HTTP/1.1 400").contains("bad-query");
    }
}
