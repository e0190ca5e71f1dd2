package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
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
 * Spoofed UDP in open mode against a real server on loopback, from many sources (each a 127.0.x.y of
 * a network of its own): with UDP_ADMISSION=tcp-known only IMEIs that logged in over TCP are stored,
 * and the instance's UDP write budget bounds a flood that admission lets through, while steady
 * devices keep every ACK.
 */
@WithRedis
class UdpIntakeAttackIT {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UdpIntakeAttackIT.class);

    private final RandomAvl random = new RandomAvl(29L);
    private final List<DatagramSocket> sockets = new ArrayList<>();
    private final List<SteadyDevices> steady = new ArrayList<>();
    private IngestionServer server;
    private TelemetryStream redisView;

    private void start(RedisFixture redis, Map<String, Object> settings) throws Exception {
        server = ItServer.start(redis, true, settings);
        redisView = new TelemetryStream(redis);
    }

    @AfterEach
    void stop() throws Exception {
        for (SteadyDevices s : steady) {
            s.close();
        }
        for (DatagramSocket s : sockets) {
            s.close();
        }
        if (redisView != null) {
            redisView.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private InetSocketAddress udp() {
        return ItServer.loopback(server.udpAddress());
    }

    private InetSocketAddress tcp() {
        return ItServer.loopback(server.tcpAddress());
    }

    private DatagramSocket udpFrom(String address) throws Exception {
        DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(address));
        socket.setSoTimeout(300);
        sockets.add(socket);
        return socket;
    }

    private void send(DatagramSocket socket, int packetId, String imei, CodecId codec, int records) throws Exception {
        byte[] datagram = Frames.udp(new UdpPacket(packetId & 0xFFFF, packetId & 0xFF, imei,
                random.packet(codec, records)));
        socket.send(new DatagramPacket(datagram, datagram.length, udp()));
    }

    private static long acks(List<DatagramSocket> sockets) throws Exception {
        long acks = 0;
        for (DatagramSocket socket : sockets) {
            while (SteadyDevices.nextAck(socket) != null) {
                acks++;
            }
        }
        return acks;
    }

    private Map<String, Long> storedPerImei() {
        return redisView.entries().stream().collect(Collectors.groupingBy(e -> e.get("imei"), Collectors.counting()));
    }

    @Test
    void tcpKnown_thenSpoofedDatagramsOfImeisNeverLoggedInOverTcpAreNotStored_andUdpDevicesKeepTheirAcks(
            RedisFixture redis) throws Exception {
        start(redis, Map.of("admission.udp", "tcp-known"));
        List<String> udpDevices = LongStream.rangeClosed(1, 3).mapToObj(TestImeis::numbered).toList();
        // A UDP tracker that also logs in over TCP now and then (as tcp-known expects): once is enough.
        for (String imei : udpDevices) {
            try (DeviceClient device = DeviceClient.connect(tcp())) {
                assertThat(device.login(imei)).isEqualTo(0x01);
            }
        }
        steady.add(SteadyDevices.udp(udp(), udpDevices, Duration.ofMillis(50)));
        steady.add(SteadyDevices.tcp(tcp(), LongStream.rangeClosed(4, 6).mapToObj(TestImeis::numbered).toList(),
                Duration.ofMillis(50)));

        List<DatagramSocket> spoofed = new ArrayList<>();
        for (int network = 1; network <= 20; network++) {
            spoofed.add(udpFrom("127.0." + (20 + network) + ".1"));
        }
        int sent = 0;
        for (int round = 0; round < 20; round++) {
            for (DatagramSocket socket : spoofed) {
                send(socket, sent, TestImeis.numbered(10_000 + sent), CodecId.CODEC_8, 1);
                sent++;
            }
        }
        int all = sent;
        await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.count(server, "teltonika.logins", "reason",
                "not-tcp-known") >= all);

        assertThat(ServerMeters.count(server, "teltonika.logins", "reason", "not-tcp-known")).isEqualTo(sent);
        assertThat(acks(spoofed)).as("no ACK for an IMEI that never logged in over TCP").isZero();
        Map<String, Long> stored = storedPerImei();
        assertThat(stored.keySet()).as("only the steady devices' records")
                .isSubsetOf(LongStream.rangeClosed(1, 6).mapToObj(TestImeis::numbered).collect(Collectors.toSet()));
        long dedupKeys = 0;
        for (int i = 0; i < sent; i++) {
            dedupKeys += redisView.redis().exists("dedup:recent:" + TestImeis.numbered(10_000 + i),
                    "device:info:" + TestImeis.numbered(10_000 + i));
        }
        assertThat(dedupKeys).as("no per-IMEI key for a refused datagram").isZero();
        for (SteadyDevices s : steady) {
            s.assertServed(10);
        }
    }

    @Test
    void floodFromManySources_thenTheInstancesUdpWriteBudgetBoundsWhatIsStored_andTcpDevicesKeepTheirAcks(
            RedisFixture redis) throws Exception {
        int budget = 300;
        int recordsPerDatagram = 10;
        // Admission lets every datagram through (any IMEI, no new-IMEI limit): only the budget is left.
        Map<String, Object> settings = new HashMap<>(Map.of("admission.udp", "any",
                "limits.max-new-imeis-per-address-per-minute", 0, "limits.max-udp-records-per-second", budget));
        start(redis, settings);
        steady.add(SteadyDevices.tcp(tcp(), LongStream.rangeClosed(1, 3).mapToObj(TestImeis::numbered).toList(),
                Duration.ofMillis(50)));

        List<DatagramSocket> flood = new ArrayList<>();
        for (int network = 1; network <= 40; network++) {
            DatagramSocket socket = udpFrom("127.0." + (100 + network) + ".1");
            // Short: the ACKs are read once everything was answered.
            socket.setSoTimeout(100);
            flood.add(socket);
        }
        long start = System.nanoTime();
        int sent = 0;
        for (int round = 0; round < 50; round++) {
            for (int s = 0; s < flood.size(); s++) {
                // Codec 8E: the steady TCP devices send Codec 8, so the flood's frames count apart.
                send(flood.get(s), sent, TestImeis.numbered(20_000 + s), CodecId.CODEC_8E, recordsPerDatagram);
                sent++;
            }
            Thread.sleep(20);
        }
        // Every datagram the server read is stored, dropped over the budget, or (a Redis too busy to
        // answer in time, on a loaded machine) failed.
        await().atMost(Duration.ofSeconds(30)).until(() -> ServerMeters.count(server, "teltonika.udp.dropped",
                "reason", "write-budget") + ServerMeters.count(server, "teltonika.records.written", "codec", "8E")
                / recordsPerDatagram + ServerMeters.count(server, "teltonika.redis.errors", "op", "telemetry-write")
                >= ServerMeters.count(server, "teltonika.frames.received", "codec", "8E"));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + 1;

        double received = ServerMeters.count(server, "teltonika.frames.received", "codec", "8E");
        double stored = ServerMeters.count(server, "teltonika.records.written", "codec", "8E");
        double dropped = ServerMeters.count(server, "teltonika.udp.dropped", "reason", "write-budget");
        long acked = acks(flood);
        LOG.info("UDP flood: sent {} datagrams of {} records, read {}, stored {} records within {} s, dropped {}, "
                + "acknowledged {}", sent, recordsPerDatagram, (long) received, (long) stored, seconds,
                (long) dropped, acked);
        assertThat(received).as("the kernel may drop some; most arrive").isGreaterThan(sent / 2.0);
        assertThat(stored).as("a second's burst and %d records a second for %d s", budget, seconds)
                .isPositive().isLessThanOrEqualTo(budget + (double) budget * seconds);
        assertThat(dropped).isPositive();
        assertThat(acked).as("an ACK only for what was stored").isEqualTo((long) (stored / recordsPerDatagram));
        Set<String> imeis = storedPerImei().keySet();
        assertThat(imeis).as("many sources got a share").hasSizeGreaterThan(3);
        for (SteadyDevices s : steady) {
            s.assertServed(10);
        }
    }
}
