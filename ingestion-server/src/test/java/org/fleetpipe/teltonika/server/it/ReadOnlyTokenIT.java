package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.api.ApiCall;
import org.fleetpipe.teltonika.server.http.BearerTokenAuth;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * API_TOKEN_READ over real sockets: the read-only token may GET under /api/v1/ and nothing else
 * (403 on the head, before any body); the operator token keeps doing everything; and the log line
 * of every change names the token that made it by its fingerprint, never by itself.
 */
@WithRedis
class ReadOnlyTokenIT {

    private static final String OPERATOR = "operator-token-it-0123456789abcdef0123456789";
    private static final String READER = "read-only-token-it-0123456789abcdef012345678";

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger changeLog = (Logger) LoggerFactory.getLogger(ApiCall.class);
    private IngestionServer server;
    private RedisFixture redis;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        this.redis = redis;
        server = ItServer.start(redis, false, Map.of("api-token", OPERATOR, "api-token-read", READER));
        log.start();
        changeLog.addAppender(log);
    }

    @AfterEach
    void stop() throws Exception {
        changeLog.detachAppender(log);
        server.close();
    }

    private String call(String method, String path, String token, String body) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.httpAddress().getPort())) {
            socket.setSoTimeout(10_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer " + token + "\r\nConnection: close\r\n");
            if (body != null) {
                request.append("Content-Type: application/json\r\nContent-Length: ")
                        .append(body.length()).append("\r\n");
            }
            request.append("\r\n");
            // The body is never sent with the read token: the answer must come on the head alone.
            if (body != null && !token.equals(READER)) {
                request.append(body);
            }
            socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private List<String> changeLines() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.startsWith("api change:"))
                .toList();
    }

    @Test
    void readOnlyToken_getsButChangesNothing_operatorTokenDoesEverything_changesLoggedWithTheFingerprint()
            throws Exception {
        String imei = TestImeis.numbered(7);
        for (String path : List.of("/api/v1/instances", "/api/v1/admission", "/api/v1/devices/" + imei)) {
            assertThat(call("GET", path, READER, null)).as("GET %s", path).matches("(?s)HTTP/1\\.1 (200|404) .*");
        }
        assertThat(call("GET", "/api/v1/admission", READER, null)).startsWith("HTTP/1.1 200");
        String[][] changes = {
            {"PUT", "/api/v1/admission/denied/" + imei, null},
            {"DELETE", "/api/v1/admission/denied/" + imei, null},
            {"POST", "/api/v1/admission/denied", "{\"add\":[\"" + imei + "\"]}"},
            {"POST", "/api/v1/devices/" + imei + "/commands", "{\"command\":\"getinfo\"}"},
            {"POST", "/api/v1/purge?dry_run=true", null},
        };
        for (String[] c : changes) {
            assertThat(call(c[0], c[1], READER, c[2])).as("%s %s with the read-only token", c[0], c[1])
                    .startsWith("HTTP/1.1 403").contains("\"error\":\"forbidden\"").contains("\"message\":");
        }
        assertThat(call("GET", "/api/v1/admission", READER, null)).as("nothing was denied").contains("\"denied\":0");
        assertThat(changeLines()).as("a refused change is no change").isEmpty();
        assertThat(call("GET", "/api/v1/admission", "not-a-token-at-all-0123456789abcdef0123", null))
                .startsWith("HTTP/1.1 401");

        assertThat(call("PUT", "/api/v1/admission/denied/" + imei, OPERATOR, null)).startsWith("HTTP/1.1 200")
                .contains("\"added\":1");
        assertThat(call("GET", "/api/v1/admission", OPERATOR, null)).contains("\"denied\":1");
        assertThat(call("DELETE", "/api/v1/admission/denied/" + imei, OPERATOR, null)).startsWith("HTTP/1.1 200");

        String fingerprint = BearerTokenAuth.fingerprint(OPERATOR);
        assertThat(fingerprint).hasSize(8).matches("[0-9a-f]{8}").isNotEqualTo(BearerTokenAuth.fingerprint(READER));
        List<String> lines = changeLines();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).contains("PUT /api/v1/admission/denied/" + imei).contains("token=" + fingerprint);
        assertThat(lines.get(1)).contains("DELETE /api/v1/admission/denied/" + imei).contains("token=" + fingerprint);
        assertThat(String.join("\n", lines)).doesNotContain(OPERATOR).doesNotContain(READER);
    }

    @Test
    void readOnlyToken_seesParameterValuesMasked_noCapture_andEveryReadIsLogged() throws Exception {
        String imei = TestImeis.numbered(8);
        String setparam = "setparam 2002:apnuser;2003:apn-secret-pw";
        String reply = "New value 2002:apnuser;2003:apn-secret-pw;";
        try (var connection = redis.client().connect()) {
            var sync = connection.sync();
            sync.hset("command:c-1", Map.of("id", "c-1", "imei", imei, "codec", "12", "command", setparam,
                    "status", "replied", "reply", reply, "history", "[]", "created_at", "1"));
            sync.zadd("dlq:commands", System.currentTimeMillis(), "{\"id\":\"c-2\",\"imei\":\"" + imei
                    + "\",\"command\":\"getparam 2003\",\"reply\":\"Param ID:2003 Value:apn-secret-pw\","
                    + "\"reason\":\"timeout\"}");
            sync.zadd("dlq:frames", System.currentTimeMillis(), "{\"reason\":\"bad-crc\",\"hex\":\"00ff\"}");
        }

        String read = call("GET", "/api/v1/commands/c-1", READER, null);
        assertThat(read).startsWith("HTTP/1.1 200").contains("setparam 2002:***;2003:***")
                .contains("New value 2002:***;2003:***;").doesNotContain("apnuser").doesNotContain("apn-secret-pw");
        assertThat(call("GET", "/api/v1/commands/c-1", OPERATOR, null)).contains(setparam).contains(reply);
        assertThat(call("GET", "/api/v1/dlq/commands", READER, null)).startsWith("HTTP/1.1 200")
                .contains("Param ID:2003 Value:***").doesNotContain("apn-secret-pw");
        assertThat(call("GET", "/api/v1/dlq/commands", OPERATOR, null)).contains("apn-secret-pw");
        assertThat(call("GET", "/api/v1/dlq/frames", READER, null)).contains("\"hex\":\"***\"")
                .doesNotContain("00ff");
        assertThat(call("GET", "/api/v1/devices/" + imei + "/capture", READER, null)).startsWith("HTTP/1.1 403")
                .contains("\"error\":\"forbidden\"");
        assertThat(call("GET", "/api/v1/devices/" + imei + "/capture", OPERATOR, null)).startsWith("HTTP/1.1 404");

        List<String> reads = log.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.startsWith("api read:")).toList();
        assertThat(reads).hasSize(7);
        assertThat(reads.get(0)).startsWith("api read: GET /api/v1/commands/c-1 token="
                + BearerTokenAuth.fingerprint(READER) + " from=");
        assertThat(String.join("\n", reads)).doesNotContain(READER).doesNotContain(OPERATOR)
                .doesNotContain("apn-secret-pw");
    }
}
