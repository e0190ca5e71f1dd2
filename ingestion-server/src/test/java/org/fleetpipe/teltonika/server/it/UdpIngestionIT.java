package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.ExpectedEntries;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The UDP path: one datagram, one packet, an ACK datagram only after the records are stored. */
@WithRedis
class UdpIngestionIT {

    private IngestionServer server;
    private TelemetryStream stream;
    private DatagramSocket device;
    private InetSocketAddress udp;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, true, Map.of());
        udp = ItServer.loopback(server.udpAddress());
        stream = new TelemetryStream(redis);
        device = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        device.setSoTimeout(DeviceClient.READ_TIMEOUT_MS);
    }

    @AfterEach
    void stop() throws Exception {
        device.close();
        stream.close();
        server.close();
    }

    private void send(byte[] datagram) throws Exception {
        device.send(new DatagramPacket(datagram, datagram.length, udp));
    }

    private UdpAck receiveAck() throws Exception {
        byte[] buffer = new byte[64];
        DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
        device.receive(reply);
        UdpAck ack = UdpAck.read(Unpooled.wrappedBuffer(Arrays.copyOf(buffer, reply.getLength())));
        assertThat(ack).as("an ACK datagram of %d bytes", reply.getLength()).isNotNull();
        return ack;
    }

    @Test
    void datagram_whenValid_thenAckCarriesItsIdsAndCountAndRecordsStored() throws Exception {
        RandomAvl random = new RandomAvl(System.nanoTime());
        AvlPacket packet = random.packet(CodecId.CODEC_8E, 7);
        long sentAt = System.currentTimeMillis();

        send(Frames.udp(new UdpPacket(0xCAFE, 0x5A, TestImeis.WIKI, packet)));
        UdpAck ack = receiveAck();
        long ackedAt = System.currentTimeMillis();

        assertThat(ack).isEqualTo(new UdpAck(0xCAFE, 0x5A, 7));
        TelemetryStream.assertStored("seed " + random.seed() + ":", stream.entries(),
                ExpectedEntries.of(TestImeis.WIKI, packet, server.instanceId()), sentAt, ackedAt);
    }

    @Test
    void datagram_largerThanNettysDefaultReceiveBuffer_isReceivedWhole() throws Exception {
        // Netty's datagram channels read into 2048-byte buffers unless told otherwise; a Codec 8E
        // packet with a large variable-length IO value is well past that.
        AvlRecord record = new AvlRecord(1_700_000_000_000L, 1, GpsElement.EMPTY, 0, AvlRecord.NO_GENERATION,
                List.of(new IoElement.Variable(385, new byte[4000]), new IoElement.Variable(386, new byte[4000])));
        AvlPacket packet = new AvlPacket(CodecId.CODEC_8E, List.of(record));
        byte[] datagram = Frames.udp(new UdpPacket(3, 4, TestImeis.WIKI, packet));
        assertThat(datagram.length).isGreaterThan(8000);

        send(datagram);

        assertThat(receiveAck()).isEqualTo(new UdpAck(3, 4, 1));
        assertThat(stream.entries()).singleElement()
                .satisfies(e -> assertThat(e.get("io")).isEqualTo("{\"385\":\"" + "00".repeat(4000) + "\",\"386\":\"" + "00".repeat(4000) + "\"}"));
    }

    @Test
    void datagrams_whenEachCodec_thenEachAckedWithItsOwnPacketId() throws Exception {
        RandomAvl random = new RandomAvl(99L);
        int packetId = 1;
        for (CodecId codec : new CodecId[] {CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16}) {
            AvlPacket packet = random.packet(codec, 3);
            send(Frames.udp(new UdpPacket(packetId, packetId, TestImeis.OTHER, packet)));
            assertThat(receiveAck()).isEqualTo(new UdpAck(packetId, packetId, 3));
            packetId++;
        }
        assertThat(stream.entries()).extracting(e -> e.get("codec"))
                .containsExactly("8", "8", "8", "8E", "8E", "8E", "16", "16", "16");
    }

    @Test
    void datagram_whenImeiCheckDigitWrong_thenNoAckAndDeadLettered() throws Exception {
        AvlPacket packet = new RandomAvl(5L).packet(CodecId.CODEC_8, 1);

        send(Frames.udp(new UdpPacket(1, 1, TestImeis.BAD_LUHN, packet)));

        await().atMost(Duration.ofSeconds(10)).until(() -> !stream.frameDeadLetters().isEmpty());
        var letter = new ObjectMapper().readTree(stream.frameDeadLetters().get(0).getValue());
        assertThat(letter.get("reason").asText()).isEqualTo("imei-check-digit");
        assertThat(letter.get("imei").asText()).isEqualTo(TestImeis.BAD_LUHN);
        // Without sleeping: a later valid datagram's ACK must be the first one that arrives.
        send(Frames.udp(new UdpPacket(2, 2, TestImeis.WIKI, packet)));
        assertThat(receiveAck()).isEqualTo(new UdpAck(2, 2, 1));
        assertThat(stream.entries()).extracting(e -> e.get("imei")).containsExactly(TestImeis.WIKI);
    }
}
