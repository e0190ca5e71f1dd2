package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hostile HTTP clients against a real server on loopback, each from another 127.0.0.x, while
 * steady devices on 127.0.0.1 keep sending: a client that pipelines requests and never reads holds
 * up only itself (the server buffers at most about one answer for it), a body sent without the
 * token is refused on the request's head, and connections past the cap are turned away; the
 * devices keep their ACKs and other HTTP clients their answers.
 */
@WithRedis
class HttpAttackIT {

    private static final Logger LOG = LoggerFactory.getLogger(HttpAttackIT.class);
    private static final int MAX_HTTP_CONNECTIONS = 6;
    private static final String TOKEN = "http-attack-it-0123456789abcdef0123456789abcdef";
    private static final String PENDING = "teltonika.http.pending.write.bytes";
    private static final int PATIENT_REQUESTS = 1_000;

    private final List<Socket> attackers = new ArrayList<>();
    private IngestionServer server;
    private InetSocketAddress http;
    private SteadyDevices steady;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("http.max-connections", MAX_HTTP_CONNECTIONS,
                "api-token", TOKEN));
        http = ItServer.loopback(server.httpAddress());
        steady = SteadyDevices.tcp(ItServer.loopback(server.tcpAddress()),
                LongStream.rangeClosed(1, 5).mapToObj(TestImeis::numbered).toList(), Duration.ofMillis(50));
    }

    @AfterEach
    void stop() throws Exception {
        steady.close();
        for (Socket s : attackers) {
            s.close();
        }
        server.close();
    }

    /**
     * A connection from 127.0.0.{@code host}; with {@code buffers} > 0, small socket buffers (no
     * autotuning), so back-pressure reaches the server and the attacker soon.
     */
    private Socket connectFrom(int host, int buffers) throws IOException {
        Socket socket = new Socket();
        attackers.add(socket);
        if (buffers > 0) {
            socket.setReceiveBufferSize(buffers);
            socket.setSendBufferSize(buffers);
        }
        socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + host), 0));
        socket.connect(http, 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** One request on a connection of its own from 127.0.0.1; the raw answer, read to the end. */
    private String exchange(String request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), http.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    }

    private double refusedConnections() {
        Counter c = server.metrics().registry().find("teltonika.http.connections.refused").counter();
        return c == null ? 0 : c.count();
    }

    /** Writes {@code request} {@code times} over, as fast as the socket takes it, on a thread of its own. */
    private Thread pipeline(Socket socket, String request, int times, AtomicLong sent) {
        byte[] bytes = request.getBytes(StandardCharsets.US_ASCII);
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                for (int i = 0; i < times; i++) {
                    out.write(bytes);
                    sent.incrementAndGet();
                }
            } catch (IOException e) {
                // Blocked once every buffer is full, until the test closes the socket.
                LOG.info("a pipelining client's writes ended: {}", e.toString());
            }
        }, "pipelining-client");
        writer.setDaemon(true);
        writer.start();
        return writer;
    }

    @Test
    void pipelinedMetricsNeverRead_thenAtMostAboutOneAnswerBuffered_othersServed_devicesKeepTheirAcks()
            throws Exception {
        String metrics = exchange(get("/metrics"));
        assertThat(metrics).startsWith("HTTP/1.1 200");
        int answerBytes = metrics.length();
        String scrape = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        // 1,000 scrapes (some 28 MB of answers, far more than the kernel's socket buffers hold),
        // and 16,000 more as fast as the socket takes them; neither client reads.
        Socket patient = connectFrom(2, 4096);
        AtomicLong patientSent = new AtomicLong();
        Thread patientWriter = pipeline(patient, scrape, PATIENT_REQUESTS, patientSent);
        Socket greedy = connectFrom(3, 4096);
        AtomicLong greedySent = new AtomicLong();
        Thread greedyWriter = pipeline(greedy, scrape, 16_000, greedySent);

        // The server stopped at an answer they do not take, and stopped reading them.
        await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.gauge(server, PENDING) > 0);
        double maxPending = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < until) {
            maxPending = Math.max(maxPending, ServerMeters.gauge(server, PENDING));
            assertThat(exchange(get("/health/live"))).as("another client meanwhile").startsWith("HTTP/1.1 200");
            Thread.sleep(100);
        }
        LOG.info("pipelining clients: the patient one wrote {} of {} scrapes, the greedy one {} of 16000 (answers"
                + " of {} bytes); the server held at most {} bytes for both", patientSent.get(), PATIENT_REQUESTS,
                greedySent.get(), answerBytes, (long) maxPending);
        assertThat(maxPending).as("bytes the server buffers for two clients that do not read: about an answer each")
                .isGreaterThan(0).isLessThanOrEqualTo(2.0 * (answerBytes + 64 * 1024));
        assertThat(greedyWriter.isAlive()).as("the greedy client is held up, not cut off").isTrue();
        assertThat(greedySent.get()).as("and far from all its requests were taken").isLessThan(16_000);
        assertThat(exchange(get("/metrics"))).startsWith("HTTP/1.1 200");

        // The patient client was only held up: reading now, it gets every answer, in order.
        greedy.close();
        patient.setSoTimeout(30_000);
        InputStream in = patient.getInputStream();
        byte[] buffer = new byte[64 * 1024];
        StringBuilder seen = new StringBuilder();
        int answers = 0;
        while (answers < PATIENT_REQUESTS) {
            int n = in.read(buffer);
            assertThat(n).as("answers read so far: %d", answers).isPositive();
            seen.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            int at;
            while ((at = seen.indexOf("HTTP/1.1 200 OK")) >= 0) {
                answers++;
                seen.delete(0, at + 15);
            }
            if (seen.length() > 15) {
                seen.delete(0, seen.length() - 15);
            }
        }
        patientWriter.join(10_000);
        assertThat(patientSent.get()).isEqualTo(PATIENT_REQUESTS);
        patient.close();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(ServerMeters.gauge(server, PENDING)).isZero();
            assertThat(ServerMeters.gauge(server, "teltonika.http.connections.active")).isZero();
        });
        steady.assertServed(20);
    }

    @Test
    void bodyWithoutTheToken_thenRefusedOnItsHead_beforeAnyBodyByteIsSent() throws Exception {
        String[] heads = {
            // Declared length, no token.
            "POST /api/v1/admission/allowed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000000\r\n\r\n",
            // A wrong token.
            "POST /api/v1/admission/denied HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-the-token\r\n"
                    + "Content-Length: 1000000\r\n\r\n",
            // Chunked: no length to refuse on, still no body read.
            "POST /api/v1/devices/352093081452251/commands HTTP/1.1\r\nHost: x\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n",
        };
        for (String head : heads) {
            Socket attacker = connectFrom(3, 0);
            attacker.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            // Only the head was sent: an answer now means the body was never waited for.
            String answer = new String(attacker.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

            assertThat(answer).as(head).startsWith("HTTP/1.1 401").contains("\"error\":\"unauthorized\"")
                    .contains("connection: close");
            attacker.close();
        }
        // A body too large for anyone is refused on its declared length too, token or not.
        Socket big = connectFrom(3, 0);
        big.getOutputStream().write(("POST /api/v1/admission/allowed HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                + TOKEN + "\r\nContent-Length: 2000000\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        assertThat(new String(big.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .startsWith("HTTP/1.1 413").contains("\"error\":\"too-large\"");
        steady.assertServed(10);
    }

    @Test
    void connectionsPastTheCap_thenTurnedAway_andAFreedSlotServesAgain() throws Exception {
        List<Socket> holders = new ArrayList<>();
        for (int i = 0; i < MAX_HTTP_CONNECTIONS; i++) {
            holders.add(connectFrom(4, 0));
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                ServerMeters.gauge(server, "teltonika.http.connections.active")).isEqualTo(MAX_HTTP_CONNECTIONS));

        for (int i = 0; i < 3; i++) {
            Socket extra = connectFrom(5, 0);
            assertThat(closedByServer(extra)).as("a connection past the cap").isTrue();
        }
        assertThat(refusedConnections()).isEqualTo(3);
        assertThat(ServerMeters.gauge(server, "teltonika.http.connections.active")).isEqualTo(MAX_HTTP_CONNECTIONS);

        holders.get(0).close();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                ServerMeters.gauge(server, "teltonika.http.connections.active")).isEqualTo(MAX_HTTP_CONNECTIONS - 1));
        assertThat(exchange(get("/health/live"))).startsWith("HTTP/1.1 200");
        steady.assertServed(10);
    }

    /** True when the server answers 503 and closes, or just closes, without being asked anything. */
    private static boolean closedByServer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return answer.isEmpty() || (answer.startsWith("HTTP/1.1 503") && answer.contains("too-many-connections"));
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
