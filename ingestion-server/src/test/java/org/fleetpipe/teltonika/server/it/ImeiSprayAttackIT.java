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
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
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
 * A host that sprays made-up IMEIs in open mode (TCP logins that leave at once, UDP datagrams, from
 * one address or spoofed from many of one /24), against real servers on loopback: only a few new
 * IMEIs per network get in, those that never stored a record leave no long-lived key, known devices
 * still get in from the same network, and steady devices keep their ACKs. The sprayers use networks
 * of their own (127.0.x.0/24): the steady devices on 127.0.0.1 use up a part of 127.0.0.0/24's budget.
 */
@WithRedis
class ImeiSprayAttackIT {

    private static final int NEW_PER_MINUTE = 10;
    private static final Duration BEFORE_RECORDS = Duration.ofSeconds(30);
    private static final int SPRAYED = 25;

    private final RandomAvl random = new RandomAvl(33L);
    private final List<DatagramSocket> sockets = new ArrayList<>();
    /** Where the known devices stored their first records. */
    private IngestionServer first;
    /** Where the spray goes: it never saw the known devices, so only Redis can tell it they are known. */
    private IngestionServer target;
    private TelemetryStream redisView;
    private SteadyDevices steady;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        Map<String, Object> settings = Map.of("limits.max-new-imeis-per-address-per-minute", NEW_PER_MINUTE,
                "limits.max-new-imeis-burst-per-address", NEW_PER_MINUTE,
                "registry.device-info-ttl-before-records", BEFORE_RECORDS.toMillis() + "ms");
        first = ItServer.start(redis, true, settings);
        target = ItServer.start(redis, true, settings);
        redisView = new TelemetryStream(redis);
        steady = SteadyDevices.tcp(ItServer.loopback(target.tcpAddress()),
                LongStream.rangeClosed(1, 3).mapToObj(TestImeis::numbered).toList(), Duration.ofMillis(50));
    }

    @AfterEach
    void stop() throws Exception {
        steady.close();
        for (DatagramSocket s : sockets) {
            s.close();
        }
        redisView.close();
        target.close();
        first.close();
    }

    private int loginFrom(String address, IngestionServer server, String imei) throws Exception {
        try (DeviceClient device = DeviceClient.connectFrom(InetAddress.getByName(address),
                ItServer.loopback(server.tcpAddress()))) {
            return device.login(imei);
        }
    }

    private DatagramSocket udpFrom(String address) throws Exception {
        DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(address));
        socket.setSoTimeout(3_000);
        sockets.add(socket);
        return socket;
    }

    private void sendDatagram(DatagramSocket socket, IngestionServer server, int packetId, String imei)
            throws Exception {
        byte[] datagram = Frames.udp(new UdpPacket(packetId, packetId & 0xFF, imei,
                random.packet(CodecId.CODEC_8, 1)));
        socket.send(new DatagramPacket(datagram, datagram.length, ItServer.loopback(server.udpAddress())));
    }

    /** The ACKs that come back until none came for 3 s. */
    private static List<UdpAck> acks(DatagramSocket socket) throws Exception {
        List<UdpAck> acks = new ArrayList<>();
        for (UdpAck ack = SteadyDevices.nextAck(socket); ack != null; ack = SteadyDevices.nextAck(socket)) {
            acks.add(ack);
        }
        return acks;
    }

    /**
     * The ACKs that come back: up to {@code expected} as long as each comes within 3 s, then any more within
     * 300 ms. Only for datagrams the server has dealt with all (one answered; or the refusals counted): a
     * wrong extra ACK is on its way by then, and 3 s of silence after each would prove nothing more.
     */
    private static List<UdpAck> acks(DatagramSocket socket, int expected) throws Exception {
        List<UdpAck> acks = new ArrayList<>();
        UdpAck ack;
        while (acks.size() < expected && (ack = SteadyDevices.nextAck(socket)) != null) {
            acks.add(ack);
        }
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(300);
        try {
            while ((ack = SteadyDevices.nextAck(socket)) != null) {
                acks.add(ack);
            }
        } finally {
            socket.setSoTimeout(timeout);
        }
        return acks;
    }

    private double refusedAsNew(IngestionServer server) {
        return ServerMeters.count(server, "teltonika.logins", "reason", "new-imei-limit");
    }

    @Test
    void tcpLoginsWithMadeUpImeis_thenFewGetIn_noneLeavesALongLivedKey_andKnownDevicesStillGetIn() throws Exception {
        String known = TestImeis.numbered(500);
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(first.tcpAddress()))) {
            assertThat(device.login(known)).isEqualTo(0x01);
            assertThat(device.sendAndReadAck(Frames.avl(random.packet(CodecId.CODEC_8, 2)))).isEqualTo(2);
        }
        assertThat(redisView.redis().pttl("device:info:" + known)).as("a device that stored records")
                .isGreaterThan(Duration.ofDays(6).toMillis());

        List<Integer> answers = new ArrayList<>();
        for (int i = 0; i < SPRAYED; i++) {
            answers.add(loginFrom("127.0.2.2", target, TestImeis.numbered(1_000 + i)));
        }

        assertThat(answers.stream().filter(a -> a == 0x01).count()).isEqualTo(NEW_PER_MINUTE);
        assertThat(answers.subList(NEW_PER_MINUTE, SPRAYED)).containsOnly(0x00);
        assertThat(refusedAsNew(target)).isEqualTo(SPRAYED - NEW_PER_MINUTE);
        for (int i = 0; i < SPRAYED; i++) {
            long ttl = redisView.redis().pttl("device:info:" + TestImeis.numbered(1_000 + i));
            if (i < NEW_PER_MINUTE) {
                assertThat(ttl).as("left after a login without records").isBetween(1L, BEFORE_RECORDS.toMillis());
            } else {
                assertThat(ttl).as("refused: no key at all").isEqualTo(-2L);
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> redisView.redis().hlen("connections:registry") == 3);
        assertThat(loginFrom("127.0.2.2", target, known)).as("known to Redis, so not new").isEqualTo(0x01);
        assertThat(redisView.redis().pttl("device:info:" + known)).as("a known device keeps the long TTL")
                .isGreaterThan(Duration.ofDays(6).toMillis());
        steady.assertServed(10);
    }

    @Test
    void udpDatagramsWithMadeUpImeis_thenFewStoredAndAcknowledged_andKnownDevicesStillAcknowledged()
            throws Exception {
        String known = TestImeis.numbered(600);
        DatagramSocket knownDevice = udpFrom("127.0.0.1");
        sendDatagram(knownDevice, first, 1, known);
        assertThat(acks(knownDevice, 1)).hasSize(1);

        DatagramSocket sprayer = udpFrom("127.0.3.3");
        for (int i = 0; i < SPRAYED; i++) {
            sendDatagram(sprayer, target, i, TestImeis.numbered(2_000 + i));
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> refusedAsNew(target) >= SPRAYED - NEW_PER_MINUTE);
        assertThat(acks(sprayer, NEW_PER_MINUTE)).hasSize(NEW_PER_MINUTE);
        assertThat(refusedAsNew(target)).isEqualTo(SPRAYED - NEW_PER_MINUTE);
        long dedupKeys = 0;
        for (int i = 0; i < SPRAYED; i++) {
            dedupKeys += redisView.redis().exists("dedup:recent:" + TestImeis.numbered(2_000 + i));
        }
        assertThat(dedupKeys).as("per-IMEI state only for those let in").isEqualTo(NEW_PER_MINUTE);
        // The known device, now behind the sprayer's address: Redis holds its dedup state.
        DatagramSocket knownBehindSprayer = udpFrom("127.0.3.3");
        sendDatagram(knownBehindSprayer, target, 2, known);
        assertThat(acks(knownBehindSprayer, 1)).hasSize(1);
        steady.assertServed(10);
    }

    @Test
    void udpSpoofedFromTenAddressesOfOneSlash24_thenStillOnlyTheNetworksNewImeiBudget() throws Exception {
        List<DatagramSocket> spoofed = new ArrayList<>();
        for (int host = 1; host <= 10; host++) {
            spoofed.add(udpFrom("127.0.4." + host));
        }
        int sent = 0;
        for (DatagramSocket socket : spoofed) {
            for (int i = 0; i < SPRAYED; i++) {
                sendDatagram(socket, target, sent, TestImeis.numbered(3_000 + sent));
                sent++;
            }
        }

        int all = sent;
        await().atMost(Duration.ofSeconds(20)).until(() -> refusedAsNew(target) >= all - NEW_PER_MINUTE);
        long acknowledged = 0;
        for (DatagramSocket socket : spoofed) {
            // Every datagram is answered or refused by now: what is not in the socket's buffer is not coming.
            socket.setSoTimeout(300);
            acknowledged += acks(socket).size();
        }
        long stored = 0;
        for (int i = 0; i < sent; i++) {
            stored += redisView.redis().exists("dedup:recent:" + TestImeis.numbered(3_000 + i));
        }

        assertThat(acknowledged).as("ten addresses, one /24: one budget, not ten").isEqualTo(NEW_PER_MINUTE);
        assertThat(stored).isEqualTo(NEW_PER_MINUTE);
        assertThat(refusedAsNew(target)).isEqualTo(sent - NEW_PER_MINUTE);
        steady.assertServed(10);
    }
}
