package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29 item 2, with real sockets from other 127.0.0.x hosts while steady devices on 127.0.0.1
 * keep sending: idle sockets that fill the API port's cap leave the probes on the health port
 * answering at once; one host gets no more than its share of the API port; a client that trickles
 * its head or body, or sends nothing, is closed after the request deadline, while a long-poll the
 * server owes an answer is not; and a body to a path that takes no token is refused on its head.
 */
@WithRedis
class HttpProbeIsolationIT {

    private static final String TOKEN = "probe-isolation-it-0123456789abcdef0123456789";
    private static final String ACTIVE = "teltonika.http.connections.active";

    private final List<Socket> attackers = new ArrayList<>();
    private IngestionServer server;
    private SteadyDevices steady;

    private void start(RedisFixture redis, Map<String, ?> extra) throws Exception {
        Map<String, Object> settings = new java.util.HashMap<>(extra);
        settings.put("api-token", TOKEN);
        server = ItServer.start(redis, false, settings);
        steady = SteadyDevices.tcp(ItServer.loopback(server.tcpAddress()),
                LongStream.rangeClosed(1, 3).mapToObj(TestImeis::numbered).toList(), Duration.ofMillis(50));
    }

    @AfterEach
    void stop() throws Exception {
        for (Socket s : attackers) {
            s.close();
        }
        if (steady != null) {
            steady.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private InetSocketAddress api() {
        return ItServer.loopback(server.httpAddress());
    }

    private InetSocketAddress health() {
        return ItServer.loopback(server.healthAddress());
    }

    /** A connection from 127.0.0.{@code host} to {@code to}, kept until the test ends. */
    private Socket connectFrom(int host, InetSocketAddress to) throws IOException {
        Socket socket = new Socket();
        attackers.add(socket);
        socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + host), 0));
        socket.connect(to, 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** One request on a connection of its own from 127.0.0.1; the raw answer, read to the end. */
    private static String exchange(InetSocketAddress to, String request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), to.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    }

    /** The answer to {@code request} on {@code socket}, and whether the server closed it afterwards. */
    private static String answerThenEnd(Socket socket) throws IOException {
        try {
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server neither answered nor closed within the socket timeout", e);
        } catch (IOException reset) {
            return "";
        }
    }

    @Test
    void idleSocketsFillTheApiPortsCap_thenTheProbesOnTheHealthPortAnswer200AtOnce(RedisFixture redis)
            throws Exception {
        // The deadline long, so the idle sockets stay for the whole test: only the separate port helps here.
        start(redis, Map.of("http.request-timeout", "60s"));
        // 64 idle sockets (the default cap) from four hosts, 16 each (the default per-address cap).
        for (int host = 2; host <= 5; host++) {
            for (int i = 0; i < 16; i++) {
                connectFrom(host, api());
            }
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(ServerMeters.gauge(server, ACTIVE)).isEqualTo(64));
        assertThat(exchange(api(), get("/health/live"))).as("the API port is full").startsWith("HTTP/1.1 503")
                .contains("too-many-connections");

        for (int round = 0; round < 20; round++) {
            long started = System.nanoTime();
            String live = exchange(health(), get("/health/live"));
            String ready = exchange(health(), get("/health/ready"));
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertThat(live).startsWith("HTTP/1.1 200").contains("\"live\"");
            assertThat(ready).startsWith("HTTP/1.1 200").contains("\"ready\"");
            // Kubernetes' default probe timeout is 1 s; a busy 2-core test box gets some slack.
            assertThat(millis).as("both probes, round %d", round).isLessThan(1_000);
        }
        assertThat(exchange(health(), get("/metrics"))).startsWith("HTTP/1.1 200")
                .containsPattern("(?m)^teltonika_http_connections_active(\\{[^}]*})? 64\\.0$");
        assertThat(exchange(health(), "GET /api/v1/instances HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                + "\r\nConnection: close\r\n\r\n")).as("no API on the health port").startsWith("HTTP/1.1 404");
        steady.assertServed(10);
    }

    @Test
    void oneHostPastItsShare_thenTurnedAway_whileAnotherHostIsServed(RedisFixture redis) throws Exception {
        start(redis, Map.of("http.max-connections-per-address", 3));
        for (int i = 0; i < 3; i++) {
            connectFrom(6, api());
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(ServerMeters.gauge(server, ACTIVE)).isEqualTo(3));

        for (int i = 0; i < 2; i++) {
            String answer = answerThenEnd(connectFrom(6, api()));
            assertThat(answer).as("a fourth connection from the same host").startsWith("HTTP/1.1 429")
                    .contains("\"error\":\"too-many-connections\"").contains("HTTP_MAX_CONNECTIONS_PER_ADDRESS");
        }
        assertThat(server.metrics().registry().find("teltonika.http.connections.address.refused").counter().count())
                .isEqualTo(2);
        Socket other = connectFrom(7, api());
        other.getOutputStream().write(get("/health/ready").getBytes(StandardCharsets.ISO_8859_1));
        assertThat(answerThenEnd(other)).as("another host").startsWith("HTTP/1.1 200");

        // A slot of the first host freed: it is served again.
        attackers.get(0).close();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(ServerMeters.gauge(server, ACTIVE)).isEqualTo(2));
        Socket again = connectFrom(6, api());
        again.getOutputStream().write(get("/health/live").getBytes(StandardCharsets.ISO_8859_1));
        assertThat(answerThenEnd(again)).startsWith("HTTP/1.1 200");
        steady.assertServed(10);
    }

    @Test
    void headOrBodyTrickledOrNothingSent_thenClosedAfterTheDeadline_butALongPollIsAnswered(RedisFixture redis)
            throws Exception {
        start(redis, Map.of("http.request-timeout", "1s"));
        long started = System.nanoTime();
        // Nothing at all, a head a byte at a time, and a body that stops short of its length.
        Socket silent = connectFrom(8, api());
        Socket head = connectFrom(9, api());
        Socket body = connectFrom(10, api());
        Socket healthSilent = connectFrom(11, health());
        OutputStream headOut = head.getOutputStream();
        body.getOutputStream().write(("POST /api/v1/admission/denied HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                + TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"add\":[")
                .getBytes(StandardCharsets.ISO_8859_1));
        byte[] trickle = "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.ISO_8859_1);
        boolean headClosed = false;
        for (int i = 0; i < 200 && !headClosed; i++) {
            try {
                headOut.write(trickle[Math.min(i, trickle.length - 1)]);
                headOut.flush();
            } catch (IOException reset) {
                headClosed = true;
            }
            Thread.sleep(50);
            headClosed |= ended(head);
        }
        assertThat(headClosed).as("the trickled head is cut off").isTrue();
        assertThat(answerThenEnd(silent)).as("a connection that sent nothing").isEmpty();
        assertThat(answerThenEnd(healthSilent)).as("the same on the health port").isEmpty();
        assertThat(answerThenEnd(body)).as("a body that stopped short").startsWith("HTTP/1.1 408")
                .contains("\"error\":\"request-timeout\"");
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertThat(seconds).as("all closed soon after the 1 s deadline").isLessThan(8);
        assertThat(server.metrics().registry().find("teltonika.http.request.timeouts").counter().count())
                .isGreaterThanOrEqualTo(3);

        // A command that waits 2.5 s for an offline device: the server owes the answer, the deadline rests.
        try (Socket poll = new Socket(InetAddress.getLoopbackAddress(), api().getPort())) {
            poll.setSoTimeout(15_000);
            String json = "{\"command\":\"getinfo\",\"wait_ms\":2500}";
            poll.getOutputStream().write(("POST /api/v1/devices/" + TestImeis.numbered(99)
                    + "/commands HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + json.length() + "\r\n\r\n" + json)
                    .getBytes(StandardCharsets.ISO_8859_1));
            long asked = System.nanoTime();
            String answer = readOneAnswer(poll.getInputStream());
            assertThat(answer).startsWith("HTTP/1.1 202");
            assertThat((System.nanoTime() - asked) / 1_000_000).as("waited the whole wait_ms").isGreaterThan(2_000);
            // Kept alive, then idle past the deadline: closed.
            assertThat(poll.getInputStream().read()).isEqualTo(-1);
        }
        steady.assertServed(10);
    }

    /** True when the server closed {@code socket} (read returns the end, or a reset). */
    private static boolean ended(Socket socket) throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(1);
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    /** The head and Content-Length body of one answer. */
    private static String readOneAnswer(InputStream in) throws IOException {
        StringBuilder text = new StringBuilder();
        int b;
        while (text.indexOf("\r\n\r\n") < 0 && (b = in.read()) >= 0) {
            text.append((char) b);
        }
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)")
                .matcher(text);
        assertThat(length.find()).as("a length in %s", text).isTrue();
        text.append(new String(in.readNBytes(Integer.parseInt(length.group(1))), StandardCharsets.UTF_8));
        return text.toString();
    }

    @Test
    void bodyToAPathThatTakesNoToken_thenRefusedOnItsHead_beforeAnyBodyByteIsSent(RedisFixture redis)
            throws Exception {
        start(redis, Map.of());
        String[][] cases = {
            {"GET /health/live HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n", "400", "bad-request"},
            {"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "400", "bad-request"},
            {"POST /health/ready HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n", "405",
                "method-not-allowed"},
            {"PUT /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n", "405", "method-not-allowed"},
        };
        for (InetSocketAddress port : List.of(api(), health())) {
            for (String[] c : cases) {
                Socket attacker = connectFrom(12, port);
                attacker.getOutputStream().write(c[0].getBytes(StandardCharsets.ISO_8859_1));
                // Only the head was sent: an answer now means the body was never waited for.
                String answer = answerThenEnd(attacker);
                assertThat(answer).as(c[0]).startsWith("HTTP/1.1 " + c[1]).contains("\"error\":\"" + c[2] + "\"")
                        .contains("connection: close");
                if (c[1].equals("405")) {
                    assertThat(answer).as("%s: a 405 names what the path takes", c[0])
                            .containsIgnoringCase("allow: GET");
                }
            }
        }
        assertThat(exchange(api(), get("/health/live"))).as("a plain GET still").startsWith("HTTP/1.1 200");
        steady.assertServed(10);
    }

    @Test
    void probePaths_withAnotherMethod_are405WithAllow_onBothPorts(RedisFixture redis) throws Exception {
        start(redis, Map.of());
        for (InetSocketAddress port : List.of(api(), health())) {
            for (String path : List.of("/health/live", "/health/ready", "/metrics")) {
                String answer = exchange(port, "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                assertThat(answer).as("POST %s", path).startsWith("HTTP/1.1 405").containsIgnoringCase("allow: GET");
            }
        }
    }
}
