package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.api.OpenApiDocument;
import org.fleetpipe.teltonika.server.api.SpecResource;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every response {@code openapi.yaml} documents is produced by a real server over a real Redis, and
 * nothing else: each call below names its operation and the status and error code it must get;
 * they are recorded, and the last test compares the record with the spec in both directions. A
 * response added to the spec without a call here, or a call whose answer the spec does not
 * document, fails the build.
 */
@WithRedis
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorApiSpecIT {

    private static final String OPERATOR = "spec-operator-token-0123456789abcdef0123";
    private static final String READER = "spec-reader-token-0123456789abcdef012345";
    /** "METHOD /path STATUS code" of every answer the calls below got. */
    private static final Set<String> PRODUCED = new TreeSet<>();

    private final ObjectMapper json = new ObjectMapper();
    private IngestionServer server;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void start(RedisFixture fixture) throws Exception {
        server = ItServer.start(fixture, false, Map.of("api-token", OPERATOR, "api-token-read", READER,
                "commands.max-queue-per-device", 1, "redis.command-timeout", "1s", "capture.max-captures", 1,
                // One capture page at a time, so a read held by the frozen Redis fills it.
                "http.answer-bytes-max", 1024 * 1024));
        connection = fixture.client().connect();
        redis = connection.sync();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        server.close();
    }

    /** An answer: status, headers and body. */
    private record Answer(int status, String head, String body) {
        String error() throws IOException {
            return status >= 400 ? new ObjectMapper().readTree(body).path("error").asText() : "";
        }
    }

    private Answer call(String method, String path, String token, String body) throws IOException {
        return call(method, path, token, body, true);
    }

    /** @param sendBody false: the head announces the body, which is not sent (a refusal comes on the head) */
    private Answer call(String method, String path, String token, String body, boolean sendBody)
            throws IOException {
        StringBuilder request = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: x\r\nConnection: close\r\n");
        if (token != null) {
            request.append("Authorization: Bearer ").append(token).append("\r\n");
        }
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            request.append("Content-Type: application/json\r\nContent-Length: ").append(content.length).append("\r\n");
        }
        request.append("\r\n");
        return exchange(request.toString().getBytes(StandardCharsets.ISO_8859_1), sendBody ? content : new byte[0]);
    }

    private Answer exchange(byte[] head, byte[] content) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.httpAddress().getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(head);
            socket.getOutputStream().write(content);
            socket.getOutputStream().flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int split = answer.indexOf("\r\n\r\n");
            return new Answer(Integer.parseInt(answer.substring(9, 12)), answer.substring(0, split),
                    answer.substring(split + 4));
        }
    }

    /** Calls, checks the answer is {@code status} with {@code code}, and records it under {@code operation}. */
    private Answer expect(String operation, int status, String code, String method, String path, String token,
                          String body) throws IOException {
        // Refused on its head: the body is never read, so it is not sent.
        Answer answer = call(method, path, token, body, status != 401 && status != 403);
        assertThat(answer.status()).as("%s %s: %s", method, path, answer.body()).isEqualTo(status);
        assertThat(answer.error()).as("%s %s: %s", method, path, answer.body()).isEqualTo(code);
        PRODUCED.add(operation + " " + status + " " + code);
        return answer;
    }

    private Answer expect(String operation, int status, String code, String path, String body) throws IOException {
        return expect(operation, status, code, operation.substring(0, operation.indexOf(' ')), path, OPERATOR, body);
    }

    /** 401 without a token; 403 with the read-only one unless it is a GET. */
    private void tokenRefusals(String operation, String path, String body) throws IOException {
        String method = operation.substring(0, operation.indexOf(' '));
        expect(operation, 401, "unauthorized", method, path, null, body);
        if (!method.equals("GET")) {
            expect(operation, 403, "forbidden", method, path, READER, body);
        }
    }

    /** A body over the limit, answered on its head. */
    private void tooLarge(String operation, String path) throws IOException {
        String method = operation.substring(0, operation.indexOf(' '));
        Answer answer = exchange((method + " " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + OPERATOR
                + "\r\nContent-Length: 2000000\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), new byte[0]);
        assertThat(answer.status()).isEqualTo(413);
        assertThat(answer.error()).isEqualTo("too-large");
        PRODUCED.add(operation + " 413 too-large");
    }

    @Test
    @Order(1)
    void everyOperation_answersAsDocumented() throws Exception {
        String spec = "GET /api/v1/openapi.yaml";
        Answer served = expect(spec, 200, "", "/api/v1/openapi.yaml", null);
        assertThat(served.head()).containsIgnoringCase("content-type: application/yaml");
        assertThat(served.body()).isEqualTo(SpecResource.read());
        tokenRefusals(spec, "/api/v1/openapi.yaml", null);

        String instances = "GET /api/v1/instances";
        assertThat(json.readTree(expect(instances, 200, "", "/api/v1/instances", null).body())
                .path("instances").get(0).path("id").asText()).startsWith("it-");
        tokenRefusals(instances, "/api/v1/instances", null);

        String shutdown = "POST /api/v1/instances/{id}/shutdown";
        // A heartbeat of an instance that is not running: asked to stop, nobody hears it.
        redis.hset("instance:heartbeat:ghost-1", "host", "nowhere");
        expect(shutdown, 202, "", "/api/v1/instances/ghost-1/shutdown", null);
        expect(shutdown, 400, "bad-instance", "/api/v1/instances/a%21b/shutdown", null);
        expect(shutdown, 404, "not-found", "/api/v1/instances/nobody-1/shutdown", null);
        tokenRefusals(shutdown, "/api/v1/instances/nobody-1/shutdown", null);

        String device = "GET /api/v1/devices/{imei}";
        String connected = TestImeis.numbered(1);
        try (DeviceClient client = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(client.login(connected)).isEqualTo(1);
            expect(device, 200, "", "/api/v1/devices/" + connected, null);
            String post = "POST /api/v1/devices/{imei}/commands";
            CompletableFuture<Void> answered = CompletableFuture.runAsync(() -> {
                try {
                    client.readFrame();
                    client.send(Frames.command(CommandFrame.codec12Response("FW:1")));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            expect(post, 200, "", "/api/v1/devices/" + connected + "/commands",
                    "{\"command\":\"getinfo\",\"wait_ms\":20000}");
            answered.join();
        }
        expect(device, 400, "bad-imei", "/api/v1/devices/123", null);
        expect(device, 404, "not-connected", "/api/v1/devices/" + TestImeis.numbered(2), null);
        tokenRefusals(device, "/api/v1/devices/" + connected, null);

        String post = "POST /api/v1/devices/{imei}/commands";
        String offline = "/api/v1/devices/" + TestImeis.numbered(3) + "/commands";
        Answer queued = expect(post, 202, "", offline, "{\"command\":\"getinfo\"}");
        String list = "GET /api/v1/devices/{imei}/commands";
        expect(list, 200, "", offline + "?limit=5", null);
        expect(list, 400, "bad-imei", "/api/v1/devices/12/commands", null);
        expect(list, 400, "bad-query", offline + "?limit=0", null);
        expect(list, 400, "bad-query", offline + "?before=gone", null);
        tokenRefusals(list, offline, null);
        expect(post, 429, "queue-full", offline, "{\"command\":\"getinfo\"}");
        expect(post, 400, "bad-imei", "/api/v1/devices/12/commands", "{\"command\":\"getinfo\"}");
        String[][] bad = {
            {"not json", "bad-json"}, {"{\"command\":\"getinfo\",\"wait\":1}", "unknown-field"},
            {"{\"command\":\"\"}", "bad-command"}, {"{\"command\":\"getinfo\",\"codec\":13}", "bad-codec"},
            {"{\"command\":\"getinfo\",\"wait_ms\":-1}", "bad-wait"}, {"{\"command\":\"getinfo\",\"ttl_ms\":0}", "bad-ttl"},
            {"{\"command\":\"getinfo\",\"max_attempts\":0}", "bad-max-attempts"},
            {"{}", "command-or-template"}, {"{\"template\":\"reboot\"}", "unknown-template"},
            {"{\"template\":\"readio\",\"args\":{\"id\":0}}", "bad-template-argument"},
        };
        for (String[] b : bad) {
            expect(post, 400, b[1], offline, b[0]);
        }
        tokenRefusals(post, offline, "{\"command\":\"getinfo\"}");
        tooLarge(post, offline);

        String templates = "GET /api/v1/command-templates";
        expect(templates, 200, "", "GET", "/api/v1/command-templates", READER, null);
        tokenRefusals(templates, "/api/v1/command-templates", null);

        String command = "GET /api/v1/commands/{id}";
        String id = json.readTree(queued.body()).path("id").asText();
        expect(command, 200, "", "/api/v1/commands/" + id, null);
        expect(command, 404, "not-found", "/api/v1/commands/no-such-command", null);
        tokenRefusals(command, "/api/v1/commands/" + id, null);

        String queues = "GET /api/v1/health/queues";
        expect(queues, 200, "", "/api/v1/health/queues", null);
        tokenRefusals(queues, "/api/v1/health/queues", null);

        String dlq = "GET /api/v1/dlq/{kind}";
        expect(dlq, 200, "", "/api/v1/dlq/frames?limit=5", null);
        expect(dlq, 400, "bad-query", "/api/v1/dlq/commands?limit=0", null);
        expect(dlq, 404, "not-found", "/api/v1/dlq/others", null);
        tokenRefusals(dlq, "/api/v1/dlq/frames", null);

        String purge = "POST /api/v1/purge";
        expect(purge, 200, "", "/api/v1/purge?dry_run=true", null);
        expect(purge, 400, "bad-query", "/api/v1/purge?dry_run=yes", null);
        tokenRefusals(purge, "/api/v1/purge?dry_run=true", null);

        String admission = "GET /api/v1/admission";
        expect(admission, 200, "", "/api/v1/admission", null);
        tokenRefusals(admission, "/api/v1/admission", null);

        String imei = TestImeis.numbered(4);
        for (String one : new String[] {"PUT /api/v1/admission/{list}/{imei}", "DELETE /api/v1/admission/{list}/{imei}"}) {
            expect(one, 200, "", "/api/v1/admission/denied/" + imei, null);
            expect(one, 400, "bad-imei", "/api/v1/admission/denied/1234", null);
            expect(one, 404, "not-found", "/api/v1/admission/maybe/" + imei, null);
            tokenRefusals(one, "/api/v1/admission/denied/" + imei, null);
        }

        String bulk = "POST /api/v1/admission/{list}";
        expect(bulk, 200, "", "/api/v1/admission/allowed", "{\"add\":[\"" + imei + "\"],\"remove\":[]}");
        expect(bulk, 400, "bad-json", "/api/v1/admission/allowed", "{\"add\":\"" + imei + "\"}");
        expect(bulk, 400, "unknown-field", "/api/v1/admission/allowed", "{\"drop\":[]}");
        expect(bulk, 400, "bad-imei", "/api/v1/admission/allowed", "{\"add\":[352093081452251]}");
        StringJoiner many = new StringJoiner(",", "{\"add\":[", "]}");
        for (int i = 0; i <= 10_000; i++) {
            many.add("\"" + TestImeis.numbered(100_000 + i) + "\"");
        }
        expect(bulk, 400, "too-many", "/api/v1/admission/allowed", many.toString());
        expect(bulk, 404, "not-found", "/api/v1/admission/maybe", "{}");
        tokenRefusals(bulk, "/api/v1/admission/allowed", "{}");
        tooLarge(bulk, "/api/v1/admission/allowed");
    }

    @Test
    @Order(1)
    void captureOperations_answerAsDocumented() throws Exception {
        String captured = "/api/v1/devices/" + TestImeis.numbered(7) + "/capture";
        String other = "/api/v1/devices/" + TestImeis.numbered(8) + "/capture";
        String post = "POST /api/v1/devices/{imei}/capture";
        expect(post, 200, "", captured, "{\"duration\":\"10m\"}");
        expect(post, 429, "too-many-captures", other, "{\"duration\":\"10m\"}");
        expect(post, 400, "bad-imei", "/api/v1/devices/123/capture", "{\"duration\":\"10m\"}");
        expect(post, 400, "bad-json", other, "not json");
        expect(post, 400, "unknown-field", other, "{\"duration\":\"10m\",\"until\":1}");
        expect(post, 400, "bad-duration", other, "{\"duration\":\"ten minutes\"}");
        expect(post, 400, "duration-too-long", other, "{\"duration\":\"2h\"}");
        tokenRefusals(post, captured, "{\"duration\":\"10m\"}");
        tooLarge(post, captured);

        String get = "GET /api/v1/devices/{imei}/capture";
        expect(get, 200, "", captured, null);
        expect(get, 403, "forbidden", "GET", captured, READER, null);
        expect(get, 400, "bad-imei", "/api/v1/devices/123/capture", null);
        expect(get, 400, "bad-query", captured + "?limit=0", null);
        expect(get, 404, "no-capture", other, null);
        tokenRefusals(get, captured, null);

        String delete = "DELETE /api/v1/devices/{imei}/capture";
        tokenRefusals(delete, captured, null);
        expect(delete, 200, "", captured, null);
        expect(delete, 400, "bad-imei", "/api/v1/devices/123/capture", null);
        expect(delete, 404, "no-capture", captured, null);
    }

    @Test
    @Order(1)
    void modelOperations_answerAsDocumented() throws Exception {
        String path = "/api/v1/devices/" + TestImeis.numbered(9) + "/model";
        String put = "PUT /api/v1/devices/{imei}/model";
        Answer stored = expect(put, 200, "", path, "{\"model\":\" fmb920 \"}");
        assertThat(json.readTree(stored.body()).path("model").asText()).isEqualTo("fmb920");
        assertThat(json.readTree(stored.body()).path("known").asBoolean()).isTrue();
        assertThat(redis.hget("devices:models", TestImeis.numbered(9))).isEqualTo("fmb920");
        Answer unknown = expect(put, 200, "", "/api/v1/devices/" + TestImeis.numbered(10) + "/model",
                "{\"model\":\"XYZ-1\"}");
        assertThat(json.readTree(unknown.body()).path("known").asBoolean()).isFalse();
        expect(put, 400, "bad-imei", "/api/v1/devices/123/model", "{\"model\":\"FMB920\"}");
        expect(put, 400, "bad-json", path, "[\"FMB920\"]");
        expect(put, 400, "unknown-field", path, "{\"model\":\"FMB920\",\"hw\":1}");
        for (String bad : new String[] {"{}", "{\"model\":\"\"}", "{\"model\":\"FMB 920\"}", "{\"model\":920}",
            "{\"model\":\"" + "X".repeat(33) + "\"}"}) {
            expect(put, 400, "bad-model", path, bad);
        }
        tokenRefusals(put, path, "{\"model\":\"FMB920\"}");
        tooLarge(put, path);

        String get = "GET /api/v1/devices/{imei}/model";
        Answer read = expect(get, 200, "", "GET", path, READER, null);
        assertThat(json.readTree(read.body()).path("imei").asText()).isEqualTo(TestImeis.numbered(9));
        assertThat(json.readTree(read.body()).path("model").asText()).isEqualTo("fmb920");
        assertThat(json.readTree(read.body()).path("known").asBoolean()).isTrue();
        expect(get, 400, "bad-imei", "/api/v1/devices/123/model", null);
        expect(get, 404, "no-model", "/api/v1/devices/" + TestImeis.numbered(11) + "/model", null);
        tokenRefusals(get, path, null);

        String delete = "DELETE /api/v1/devices/{imei}/model";
        tokenRefusals(delete, path, null);
        Answer removed = expect(delete, 204, "", path, null);
        assertThat(removed.body()).isEmpty();
        assertThat(redis.hexists("devices:models", TestImeis.numbered(9))).isFalse();
        expect(delete, 400, "bad-imei", "/api/v1/devices/123/model", null);
        expect(delete, 404, "no-model", path, null);
    }

    @Test
    @Order(2)
    void knownPath_withAnotherMethod_is405WithAllow_andAnUnknownPath404() throws Exception {
        Answer wrong = call("GET", "/api/v1/admission/denied/" + TestImeis.numbered(5), OPERATOR, null);
        assertThat(wrong.status()).isEqualTo(405);
        assertThat(wrong.error()).isEqualTo("method-not-allowed");
        assertThat(wrong.head()).containsIgnoringCase("allow: PUT, DELETE");
        assertThat(call("DELETE", "/api/v1/instances", OPERATOR, null).head()).containsIgnoringCase("allow: GET");
        Answer unknown = call("GET", "/api/v1/nothing/here", OPERATOR, null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error()).isEqualTo("not-found");
        assertThat(json.readTree(unknown.body()).path("message").asText()).isEqualTo("no such resource: nothing/here");
    }

    @Test
    @Order(3)
    void redisFrozen_everyOperationThatNeedsIt_answers503(RedisFixture fixture) throws Exception {
        String imei = TestImeis.numbered(6);
        fixture.freeze();
        try {
            expect("GET /api/v1/instances", 503, "redis-unavailable", "/api/v1/instances", null);
            expect("POST /api/v1/instances/{id}/shutdown", 503, "redis-unavailable",
                    "/api/v1/instances/ghost-1/shutdown", null);
            expect("GET /api/v1/devices/{imei}", 503, "redis-unavailable", "/api/v1/devices/" + imei, null);
            expect("POST /api/v1/devices/{imei}/commands", 503, "redis-unavailable",
                    "/api/v1/devices/" + imei + "/commands", "{\"command\":\"getinfo\"}");
            expect("GET /api/v1/commands/{id}", 503, "redis-unavailable", "/api/v1/commands/x", null);
            expect("GET /api/v1/devices/{imei}/commands", 503, "redis-unavailable",
                    "/api/v1/devices/" + imei + "/commands", null);
            expect("GET /api/v1/dlq/{kind}", 503, "redis-unavailable", "/api/v1/dlq/frames", null);
            expect("POST /api/v1/purge", 503, "purge-failed", "/api/v1/purge?dry_run=true", null);
            expect("GET /api/v1/admission", 503, "redis-unavailable", "/api/v1/admission", null);
            expect("PUT /api/v1/admission/{list}/{imei}", 503, "redis-unavailable",
                    "/api/v1/admission/denied/" + imei, null);
            expect("DELETE /api/v1/admission/{list}/{imei}", 503, "redis-unavailable",
                    "/api/v1/admission/denied/" + imei, null);
            expect("POST /api/v1/admission/{list}", 503, "redis-unavailable", "/api/v1/admission/denied",
                    "{\"add\":[\"" + imei + "\"]}");
            String capture = "/api/v1/devices/" + imei + "/capture";
            expect("POST /api/v1/devices/{imei}/capture", 503, "redis-unavailable", capture, "{\"duration\":\"1m\"}");
            CompletableFuture<Answer> holding = CompletableFuture.supplyAsync(() -> {
                try {
                    return call("GET", capture, OPERATOR, null);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> ServerMeters.gauge(server, "teltonika.http.answer.bytes") > 0);
            Answer busy = expect("GET /api/v1/devices/{imei}/capture", 503, "answers-pending", capture, null);
            assertThat(busy.head()).containsIgnoringCase("\r\nretry-after: 1");
            assertThat(holding.get(30, TimeUnit.SECONDS).error()).isEqualTo("redis-unavailable");
            expect("GET /api/v1/devices/{imei}/capture", 503, "redis-unavailable", capture, null);
            expect("DELETE /api/v1/devices/{imei}/capture", 503, "redis-unavailable", capture, null);
            String model = "/api/v1/devices/" + imei + "/model";
            expect("PUT /api/v1/devices/{imei}/model", 503, "redis-unavailable", model, "{\"model\":\"FMB920\"}");
            expect("GET /api/v1/devices/{imei}/model", 503, "redis-unavailable", model, null);
            expect("DELETE /api/v1/devices/{imei}/model", 503, "redis-unavailable", model, null);
        } finally {
            fixture.thaw();
        }
    }

    @Test
    @Order(4)
    void everyDocumentedResponse_wasProduced_andEveryProducedOneIsDocumented() {
        Set<String> documented = OpenApiDocument.served().responses();
        Set<String> missing = new TreeSet<>(documented);
        missing.removeAll(PRODUCED);
        Set<String> undocumented = new TreeSet<>(PRODUCED);
        undocumented.removeAll(documented);

        assertThat(missing).as("documented, never produced (run the whole class)").isEmpty();
        assertThat(undocumented).as("produced, not documented").isEmpty();
    }
}
