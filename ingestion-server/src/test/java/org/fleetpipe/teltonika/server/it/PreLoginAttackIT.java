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
 * real server on loopback, each attacker network a different 127.0.x.0/24 (the caps are per /24, so
 * all of 127.0.0.x is one network), while steady devices on 127.0.0.1 keep sending: the attackers
 * are capped, evicted and closed, the devices keep their ACKs.
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

    private RedisFixture redis;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        this.redis = redis;
        start(DEADLINE);
    }

    private void start(Duration loginDeadline) throws Exception {
        start(loginDeadline, Map.of());
    }

    private void start(Duration loginDeadline, Map<String, Object> more) throws Exception {
        Map<String, Object> settings = new java.util.HashMap<>(Map.of("timeouts.login", loginDeadline.toMillis() + "ms",
                "limits.max-pre-login-connections", IN_ALL,
                "limits.max-pre-login-connections-per-address", PER_ADDRESS,
                "limits.max-connections", 500));
        settings.putAll(more);
        server = ItServer.start(redis, false, settings);
        tcp = ItServer.loopback(server.tcpAddress());
        steady = SteadyDevices.tcp(tcp, LongStream.rangeClosed(1, 5).mapToObj(TestImeis::numbered).toList(),
                Duration.ofMillis(50));
    }

    /** A server whose holders outlive the test's waits: what is closed, the eviction closed. */
    private void restartWithLongDeadline() throws Exception {
        steady.close();
        server.close();
        start(Duration.ofSeconds(60));
    }

    @AfterEach
    void stop() throws Exception {
        steady.close();
        for (DeviceClient a : attackers) {
            a.close();
        }
        server.close();
    }

    /** Opens {@code count} connections from 127.0.{@code network}.1; returns them. */
    private List<DeviceClient> connectFrom(int network, int count) throws Exception {
        return connectFrom("127.0." + network + ".1", count);
    }

    private List<DeviceClient> connectFrom(String address, int count) throws Exception {
        InetAddress from = InetAddress.getByName(address);
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
    void silentAndTricklingHolders_fromTwoNetworks_thenCappedPerNetwork_closedAtTheDeadline_andDevicesStillLogIn()
            throws Exception {
        long start = System.nanoTime();
        List<DeviceClient> silent = connectFrom(2, 30);
        List<DeviceClient> trickling = connectFrom(3, 30);
        byte[] login = Frames.login(TestImeis.numbered(99));

        // The trickling ones send one byte of a login every 300 ms: a reader-idle timer would never fire.
        // Past each network's cap the accept pace keeps them waiting, unread, until a place frees.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).isEqualTo(2.0 * PER_ADDRESS);
            assertThat(ServerMeters.gauge(server, "teltonika.accept.waiting")).isEqualTo(60.0 - 2 * PER_ADDRESS);
        });
        assertThat(ServerMeters.count(server, "teltonika.connections.closed", "reason", "pre-login-limit")).isZero();
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
        assertThat(closedAfterMillis).as("closed at the deadline, though bytes kept coming; those that waited for"
                + " a place at theirs, a deadline later").isGreaterThanOrEqualTo(2 * DEADLINE.toMillis())
                .isLessThan(2 * DEADLINE.toMillis() + 6_000);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(ServerMeters.count(server, "teltonika.connections.closed", "reason", "login-timeout"))
                    .isEqualTo(60);
            assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).isZero();
        });
        steady.assertServed(20);
    }

    @Test
    void holders_fromManyNetworks_thenThePoolStaysAtItsCap_theOldestEvicted_farBelowMaxConnections()
            throws Exception {
        List<DeviceClient> all = new ArrayList<>();
        for (int network = 2; network <= 6; network++) {
            all.addAll(connectFrom(network, PER_ADDRESS));
        }
        List<DeviceClient> newest = all.subList(all.size() - PER_ADDRESS, all.size());

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(stillOpen(all)).isEqualTo(IN_ALL));
        assertThat(stillOpen(newest)).as("the newest stay; the oldest made room").isEqualTo(PER_ADDRESS);
        assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).isEqualTo(IN_ALL);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.count(server,
                "teltonika.connections.closed", "reason", "pre-login-evicted")).isEqualTo(5 * PER_ADDRESS - IN_ALL));
        assertThat(ServerMeters.count(server, "teltonika.connections.closed", "reason", "pre-login-limit")).isZero();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(server.metrics().activeConnections())
                .as("the steady five and the capped holders").isEqualTo(5 + IN_ALL));
        await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> assertThat(stillOpen(all)).isZero());
        steady.assertServed(20);
    }

    @Test
    void fullPoolOfHolders_thenARealDeviceEvictsTheOldestAndLogsIn() throws Exception {
        restartWithLongDeadline();
        List<DeviceClient> all = new ArrayList<>();
        for (int network = 2; network <= 4; network++) {
            all.addAll(connectFrom(network, PER_ADDRESS));
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.gauge(server,
                "teltonika.connections.pre.login")).isEqualTo(IN_ALL));
        try (DeviceClient device = DeviceClient.connectFrom(InetAddress.getByName("127.0.9.1"), tcp)) {
            assertThat(device.login(TestImeis.numbered(60))).as("a real device, the pool full").isEqualTo(0x01);
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.count(server,
                "teltonika.connections.closed", "reason", "pre-login-evicted")).isEqualTo(1));
        // The pool's age is the order the event loops saw the connections open, which two loops may
        // swap for connections a moment apart: the one that made room is among the first few.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(stillOpen(all.subList(0, 5)))
                .as("one of the oldest holders made room").isEqualTo(4));
        assertThat(stillOpen(all)).as("the others hold on").isEqualTo(IN_ALL - 1);
        assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login")).as("the device logged in")
                .isEqualTo(IN_ALL - 1);
        steady.assertServed(20);
    }

    @Test
    void holders_fromManyAddressesOfOneSlash24_thenOneNetworksCap() throws Exception {
        List<DeviceClient> all = new ArrayList<>();
        for (int host = 1; host <= 5; host++) {
            all.addAll(connectFrom("127.0.5." + host, 10));
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(ServerMeters.gauge(server, "teltonika.connections.pre.login"))
                    .as("five addresses, one /24: one cap").isEqualTo(PER_ADDRESS);
            assertThat(ServerMeters.gauge(server, "teltonika.accept.waiting")).as("the rest wait for a place, unread")
                    .isEqualTo(50.0 - PER_ADDRESS);
        });
        try (DeviceClient device = DeviceClient.connectFrom(InetAddress.getByName("127.0.6.1"), tcp)) {
            assertThat(device.login(TestImeis.numbered(70))).as("another network still gets in").isEqualTo(0x01);
        }
        steady.assertServed(20);
    }

    @Test
    void holders_fromOneSlash24_withTheAcceptPaceOff_thenPastItsCapClosedAtOnce() throws Exception {
        steady.close();
        server.close();
        start(DEADLINE, Map.of("limits.max-accepts-per-second", 0, "limits.max-accepts-per-network-per-second", 0));
        List<DeviceClient> all = new ArrayList<>();
        for (int host = 1; host <= 5; host++) {
            all.addAll(connectFrom("127.0.5." + host, 10));
        }

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(stillOpen(all))
                .as("five addresses, one /24: one cap").isEqualTo(PER_ADDRESS));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ServerMeters.count(server,
                "teltonika.connections.closed", "reason", "pre-login-limit")).isEqualTo(50 - PER_ADDRESS));
        try (DeviceClient device = DeviceClient.connectFrom(InetAddress.getByName("127.0.6.1"), tcp)) {
            assertThat(device.login(TestImeis.numbered(70))).as("another network still gets in").isEqualTo(0x01);
        }
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
