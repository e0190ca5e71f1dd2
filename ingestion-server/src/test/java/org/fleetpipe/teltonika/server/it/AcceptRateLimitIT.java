package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * A herd over MAX_ACCEPTS_PER_SECOND on real sockets: the connections wait for their turn, are let in
 * at the cap's pace, and every device logs in. One host's bare connects take only its network's share
 * of that pace (MAX_ACCEPTS_PER_NETWORK_PER_SECOND), and past MAX_ACCEPT_WAITING_PER_NETWORK waiting
 * they are closed: a device of another network logs in quickly beside them.
 */
@WithRedis
class AcceptRateLimitIT {

    private static final int HERD = 20;

    @Test
    void herdOverTheAcceptCap_isLetInAtItsPace_andEveryDeviceLogsIn(RedisFixture redis) throws Exception {
        // 10 a second: one accept a tenth of a second.
        IngestionServer server = ItServer.start(redis, false, Map.of("limits.max-accepts-per-second", 10));
        List<DeviceClient> herd = new ArrayList<>();
        try {
            InetSocketAddress tcp = ItServer.loopback(server.tcpAddress());
            long started = System.nanoTime();
            for (int i = 1; i <= HERD; i++) {
                // The kernel completes the handshake; the login waits until the server accepts.
                DeviceClient device = DeviceClient.connect(tcp);
                herd.add(device);
                device.send(Frames.login(TestImeis.numbered(i)));
            }

            for (DeviceClient device : herd) {
                assertThat(device.readByte()).as("every device of the herd logs in").isEqualTo(1);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            // A lower bound only: a slow machine takes longer, never shorter.
            assertThat(took).as("20 accepts at one a tenth of a second").isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
            assertThat(server.metrics().registry().get("teltonika.accept.deferred").counter().count())
                    .as("they waited their turn").isGreaterThanOrEqualTo(HERD / 2.0);
            assertThat(ServerMeters.count(server, "teltonika.accept.refused", "reason", "network-share")).isZero();
        } finally {
            for (DeviceClient device : herd) {
                device.close();
            }
            server.close();
        }
    }

    @Test
    void bareConnectsFromOneHost_thenOnlyItsNetworksShare_andADeviceOfAnotherNetworkLogsInQuickly(RedisFixture redis)
            throws Exception {
        // 50 a second in all, 10 a second per /24, 50 of a network waiting: without the share, 300
        // connects ahead of a login would take 6 s to get through.
        IngestionServer server = ItServer.start(redis, false, Map.of("limits.max-accepts-per-second", 50,
                "limits.max-accepts-per-network-per-second", 10, "limits.max-accept-waiting-per-network", 50));
        List<java.net.Socket> bare = new ArrayList<>();
        SteadyDevices steady = null;
        try {
            InetSocketAddress tcp = ItServer.loopback(server.tcpAddress());
            steady = SteadyDevices.tcp(tcp, List.of(TestImeis.numbered(1), TestImeis.numbered(2)),
                    Duration.ofMillis(50));
            java.net.InetAddress attacker = java.net.InetAddress.getByName("127.0.40.1");
            for (int i = 0; i < 300; i++) {
                java.net.Socket socket = new java.net.Socket();
                socket.bind(new InetSocketAddress(attacker, 0));
                // The kernel completes the handshake; accepting it is the server's business.
                socket.connect(tcp, 5_000);
                bare.add(socket);
            }

            long started = System.nanoTime();
            try (DeviceClient device = DeviceClient.connectFrom(java.net.InetAddress.getByName("127.0.41.1"), tcp)) {
                assertThat(device.login(TestImeis.numbered(3))).isEqualTo(1);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(took).as("a login behind 300 connects of another network").isLessThan(Duration.ofMillis(2_500));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> ServerMeters.count(server,
                    "teltonika.accept.refused", "reason", "network-share") > 200);
            steady.assertServed(10);
        } finally {
            if (steady != null) {
                steady.close();
            }
            for (java.net.Socket socket : bare) {
                socket.close();
            }
            server.close();
        }
    }
}
