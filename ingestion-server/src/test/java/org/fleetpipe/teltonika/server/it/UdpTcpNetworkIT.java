package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42 item 6, on real sockets: with UDP_ADMISSION=tcp-network a datagram naming an IMEI that
 * logged in over TCP is stored only from the source network (/24) of its current or last TCP
 * session; one spoofed from another network, a forged position in it, is refused and never stored,
 * and a new TCP login from another network moves the binding there.
 */
@WithRedis
class UdpTcpNetworkIT {

    private static final String DEVICE = TestImeis.numbered(7001);

    private final RandomAvl random = new RandomAvl(43L);
    private final List<DatagramSocket> sockets = new ArrayList<>();
    private IngestionServer server;
    private TelemetryStream stream;
    private int packetId;

    @AfterEach
    void stop() throws Exception {
        for (DatagramSocket s : sockets) {
            s.close();
        }
        if (stream != null) {
            stream.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private DatagramSocket udpFrom(String address) throws Exception {
        DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(address));
        socket.setSoTimeout(2_000);
        sockets.add(socket);
        return socket;
    }

    /** Sends one single-record datagram of {@link #DEVICE}; true when it was acknowledged. */
    private boolean sendFrom(DatagramSocket socket) throws Exception {
        int id = ++packetId;
        byte[] datagram = Frames.udp(new UdpPacket(id, id & 0xFF, DEVICE, random.packet(CodecId.CODEC_8, 1)));
        socket.send(new DatagramPacket(datagram, datagram.length, ItServer.loopback(server.udpAddress())));
        return SteadyDevices.nextAck(socket) != null;
    }

    private void loginOverTcpFrom(String address) throws Exception {
        try (DeviceClient device = DeviceClient.connectFrom(InetAddress.getByName(address),
                ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(DEVICE)).isEqualTo(0x01);
        }
    }

    private long stored() {
        return stream.entries().stream().filter(e -> DEVICE.equals(e.get("imei"))).count();
    }

    @Test
    void tcpNetwork_thenDatagramsOnlyFromTheNetworkOfTheImeisTcpSession_spoofedOnesElsewhereRefused(
            RedisFixture redis) throws Exception {
        server = ItServer.start(redis, true, Map.of("admission.udp", "tcp-network"));
        stream = new TelemetryStream(redis);
        loginOverTcpFrom("127.0.50.1");

        // Another address of the session's /24 (a carrier NAT's pool): stored.
        DatagramSocket device = udpFrom("127.0.50.7");
        assertThat(sendFrom(device)).as("from the TCP session's network").isTrue();
        assertThat(sendFrom(device)).isTrue();
        // The same IMEI, a forged position, from another network: refused, never stored.
        DatagramSocket spoofer = udpFrom("127.0.60.1");
        for (int i = 0; i < 3; i++) {
            assertThat(sendFrom(spoofer)).as("spoofed from another network").isFalse();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ServerMeters.count(server, "teltonika.logins", "reason",
                "not-tcp-network") >= 3);
        assertThat(stored()).as("only the two from the session's network").isEqualTo(2);

        // The device logs in over TCP from a new network (its carrier moved it): UDP follows.
        loginOverTcpFrom("127.0.61.1");
        DatagramSocket moved = udpFrom("127.0.61.9");
        assertThat(sendFrom(moved)).as("from the new session's network").isTrue();
        assertThat(sendFrom(udpFrom("127.0.50.8"))).as("no longer from the old one").isFalse();
        // An IMEI that never logged in over TCP stays refused as with tcp-known.
        assertThat(ServerMeters.count(server, "teltonika.logins", "reason", "not-tcp-known")).isZero();
        assertThat(stored()).isEqualTo(3);
    }
}
