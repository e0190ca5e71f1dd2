package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hosts that connect and never log in (silent, pinging, trickling a login byte by byte) against a
 * real server on loopback, each attacker address a different 127.0.0.x, while steady devices on
 * 127.0.0.1 keep sending: the attackers are capped and closed, the devices keep their ACKs.
 */
@WithRedis
class PreLoginAttackIT {

    private static final int PER_ADDRESS = 20;
    private static final int IN_ALL = 60;
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    private final List<DeviceClient> attackers = new ArrayList<>();
    private IngestionServer server;
    private InetSocketAddress tcp;
    private SteadyDevices steady;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("timeouts.login", DEADLINE.toMillis() + "ms",
                "limits.max-pre-login-connections", IN_ALL,
                "limits.max-pre-login-connections-per-address", PER_ADDRESS,
                "limits.max-connections", 500));
        tcp = ItServer.loopback(server.tcpAddress());
        steady = SteadyDevices.tcp(tcp, LongStream.rangeClosed(1, 5).mapToObj(TestImeis::numbered).toList(),
                Duration.ofMillis(50));
    }

    @AfterEach
    void stop() throws Exception {
        steady.close();
        for (DeviceClient a : attackers) {
            a.close();
        }
        server.close();
    }

    /** Opens {@code count} connections from 127.0.0.{@code host}; returns those still open a moment later. */
    private List<DeviceClient> connectFrom(int host, int count) throws Exception {
        InetAddress from = InetAddress.getByName("127.0.0." + host);
        List<DeviceClient> opened = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            DeviceClient client = DeviceClient.connectFrom(from, tcp);
            attackers.add(client);
            opened.add(client);
        }
        return opened;
    }

    private static long stillOpen(List<DeviceClient> clients) throws Exception {
        long open = 0;
        for (DeviceClient c : clients) {
            open += c.closedByServer(1) ? 0 : 1;
        }
        return open;
    }

    @Test
    void silentAndTricklingHolders_fromTwoAddresses_thenCappedPerAddress_closedAtTheDeadline_andDevicesStillLogIn()
            throws Exception {
        long start = System.nanoTime();
        List<DeviceClient> silent = connectFrom(2, 30);
        List<DeviceClient> trickling = connectFrom(3, 30);
        byte[] login = Frames.login(TestImeis.numbered(99));

        // The trickling ones send one byte of a login every 300 ms: a reader-idle timer would never fire.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(stillOpen(silent)).isEqualTo(PER_ADDRESS);
            assertThat(stillOpen(trickling)).isEqualTo(PER_ADDRESS);
        });
        assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).isEqualTo(2.0 * PER_ADDRESS);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.count(server,
                "teltonika.connections.closed", "reason", "pre-login-limit")).isEqualTo(20));
        try (DeviceClient newcomer = DeviceClient.connect(tcp)) {
            assertThat(newcomer.login(TestImeis.numbered(50))).as("a real device still gets in").isEqualTo(0x01);
        }
        // Past the deadline, the trickling ones still sending.
        for (int b = 0; TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < DEADLINE.toMillis() + 1_000; b++) {
            for (DeviceClient c : trickling) {
                try {
                    c.send(new byte[] {login[b % login.length]});
                } catch (java.io.IOException closed) {
                    // closed by the server meanwhile
                }
            }
            Thread.sleep(300);
        }

        await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
            assertThat(stillOpen(silent)).isZero();
            assertThat(stillOpen(trickling)).isZero();
        });
        long closedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(closedAfterMillis).as("closed at the deadline, though bytes kept coming")
                .isGreaterThanOrEqualTo(DEADLINE.toMillis()).isLessThan(DEADLINE.toMillis() + 6_000);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(ServerMeters.count(server, "teltonika.connections.closed", "reason", "login-timeout"))
                    .isEqualTo(2 * PER_ADDRESS);
            assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).isZero();
        });
        steady.assertServed(20);
    }

    @Test
    void holders_fromManyAddresses_thenCappedInAll_farBelowMaxConnections() throws Exception {
        List<DeviceClient> all = new ArrayList<>();
        for (int host = 2; host <= 6; host++) {
            all.addAll(connectFrom(host, PER_ADDRESS));
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(stillOpen(all)).isEqualTo(IN_ALL));
        assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).isEqualTo(IN_ALL);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.count(server,
                "teltonika.connections.closed", "reason", "pre-login-limit")).isEqualTo(5 * PER_ADDRESS - IN_ALL));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(server.metrics().activeConnections())
                .as("the steady five and the capped holders").isEqualTo(5 + IN_ALL));
        await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> assertThat(stillOpen(all)).isZero());
        steady.assertServed(20);
    }

    @Test
    void keepAliveFloodsAndPreamblesBeforeLogin_thenEachConnectionClosedOnItsFirstBytes_withoutALoginAnswer()
            throws Exception {
        List<DeviceClient> pinging = connectFrom(2, 10);
        List<DeviceClient> preambles = connectFrom(3, 10);
        byte[] forty = new byte[40];
        Arrays.fill(forty, (byte) 0xFF);

        for (DeviceClient c : pinging) {
            // Past the 16 keep-alives a tracker may send before its IMEI, then a login that must not be answered.
            c.send(Frames.concat(forty, Frames.login(TestImeis.numbered(77))));
        }
        for (DeviceClient c : preambles) {
            // The header of a 16 KB frame: refused on it, no body byte is waited for or buffered.
            c.send(new byte[] {0, 0, 0, 0, 0, 0, 0x3F, (byte) 0xF0});
        }

        for (DeviceClient c : pinging) {
            assertThat(c.readUntilClosed()).as("no 01 after 40 keep-alives").isEmpty();
        }
        // Well before the 2 s deadline: refused on the bytes, not timed out.
        await().atMost(Duration.ofMillis(1_500)).untilAsserted(() -> {
            assertThat(stillOpen(pinging)).isZero();
            assertThat(stillOpen(preambles)).isZero();
        });
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.count(server,
                "teltonika.frames.rejected", "reason", "not-logged-in")).isEqualTo(20));
        assertThat(ServerMeters.count(server, "teltonika.connections.closed", "reason", "login-timeout")).isZero();
        steady.assertServed(20);
    }
}
