package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42 item 5, on real sockets: idle sockets held on the health port from one address (or from
 * four, filling the whole cap) leave the probes answering 200, from another address and from the
 * same one: a host gets at most HEALTH_MAX_CONNECTIONS_PER_ADDRESS slots, and a new connection
 * takes the slot of the connection that has waited longest without sending a request.
 */
@WithRedis
class HealthPortOneHostIT {

    private static final String ACTIVE = "teltonika.health.connections.active";

    private final List<Socket> held = new ArrayList<>();
    private IngestionServer server;

    @AfterEach
    void stop() throws Exception {
        for (Socket s : held) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private InetSocketAddress health() {
        return ItServer.loopback(server.healthAddress());
    }

    /** An idle connection from {@code from}, held until the test ends (or the server closes it). */
    private void hold(String from) throws IOException {
        Socket socket = new Socket();
        held.add(socket);
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(health(), 5_000);
    }

    /** A probe from {@code from} on a connection of its own, as the kubelet sends it; the raw answer. */
    private String probe(String from, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            socket.connect(health(), 5_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void assertProbesAnswer200(String from, int probes) throws IOException {
        for (int i = 0; i < probes; i++) {
            String path = i % 2 == 0 ? "/health/live" : "/health/ready";
            assertThat(probe(from, path)).as("probe %d from %s (%s)", i, from, path).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void fortySocketsHeldFromOneAddress_thenProbesFromAnotherAndFromTheSameAddressAnswer200(RedisFixture redis)
            throws Exception {
        // A long deadline: the held sockets stay idle for the whole test unless the cap moves them.
        server = ItServer.start(redis, false, Map.of("http.request-timeout", "60s"));
        for (int i = 0; i < 40; i++) {
            hold("127.0.0.2");
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(ServerMeters.gauge(server, ACTIVE)).isEqualTo(4));

        assertProbesAnswer200("127.0.0.1", 28);
        // The kubelet probes from the node's address: the same host's idle sockets give way to it.
        assertProbesAnswer200("127.0.0.2", 10);
        assertThat(ServerMeters.gauge(server, ACTIVE)).isLessThanOrEqualTo(4);
        assertThat(server.metrics().registry().find("teltonika.health.connections.evicted").counter().count())
                .isGreaterThanOrEqualTo(36);
    }

    @Test
    void idleSocketsFromFourAddressesFillTheCap_thenAProbeFromAFifthAnswers200(RedisFixture redis)
            throws Exception {
        server = ItServer.start(redis, false, Map.of("http.request-timeout", "60s"));
        for (int host = 3; host <= 6; host++) {
            for (int i = 0; i < 4; i++) {
                hold("127.0.0." + host);
            }
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(ServerMeters.gauge(server, ACTIVE)).isEqualTo(16));

        assertProbesAnswer200("127.0.0.1", 28);
        assertThat(ServerMeters.gauge(server, ACTIVE)).isLessThanOrEqualTo(16);
    }
}
