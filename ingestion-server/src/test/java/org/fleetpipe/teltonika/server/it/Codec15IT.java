package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.StreamMessage;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Codec 15 (FMX6 RS232 messages) against a real server on loopback: a logged-in device's own
 * message lands in device:messages with codec 15, its time and its text, unanswered; one naming
 * another IMEI lands in dlq:frames and never in device:messages; over UDP it is refused as a
 * codec that carries no AVL records.
 */
@WithRedis
class Codec15IT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DEVICE_SECONDS = 1_700_000_000L;

    private IngestionServer server;
    private TelemetryStream redisView;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, true, Map.of());
        redisView = new TelemetryStream(redis);
    }

    @AfterEach
    void stop() throws Exception {
        redisView.close();
        server.close();
    }

    private List<Map<String, String>> messages() {
        return redisView.redis().xrange("device:messages", Range.create("-", "+")).stream()
                .map(StreamMessage::getBody).toList();
    }

    private List<JsonNode> deadLetters() throws Exception {
        List<JsonNode> letters = new java.util.ArrayList<>();
        for (ScoredValue<String> letter : redisView.frameDeadLetters()) {
            letters.add(JSON.readTree(letter.getValue()));
        }
        return letters;
    }

    @Test
    void tcp_ownMessageStoredWithCodec15AndDeviceTime_otherImeiDeadLettered_andTheDeviceStaysServed()
            throws Exception {
        byte[] own = Frames.command(CommandFrame.codec15Message(TestImeis.WIKI, DEVICE_SECONDS, "WEIGHT 1234 kg\r\n"));
        byte[] foreign = Frames.command(CommandFrame.codec15Message(TestImeis.OTHER, DEVICE_SECONDS, "spoofed"));
        long sentAt = System.currentTimeMillis();
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);

            device.send(Frames.concat(own, foreign));
            // Frames are handled in order behind their writes, and Codec 15 gets no answer: the next
            // four bytes are this packet's ACK, and by then both messages were dealt with.
            assertThat(device.sendAndReadAck(Frames.avl(new RandomAvl(15L).packet(CodecId.CODEC_8, 2))))
                    .isEqualTo(2);
            assertThat(device.closedByServer()).isFalse();
        }

        assertThat(messages()).singleElement().satisfies(m -> {
            assertThat(m).containsEntry("imei", TestImeis.WIKI).containsEntry("codec", "15")
                    .containsEntry("ts", Long.toString(DEVICE_SECONDS * 1000))
                    .containsEntry("text", "WEIGHT 1234 kg\r\n");
            assertThat(Long.parseLong(m.get("rx"))).isGreaterThanOrEqualTo(sentAt);
        });
        assertThat(deadLetters()).singleElement().satisfies(letter -> {
            assertThat(letter.get("reason").asText()).isEqualTo("codec15-imei-mismatch");
            assertThat(letter.get("imei").asText()).isEqualTo(TestImeis.WIKI);
            assertThat(letter.get("detail").asText()).contains(TestImeis.OTHER);
            assertThat(letter.get("hex").asText()).isEqualTo(HexFormat.of().formatHex(foreign));
        });
        assertThat(ServerMeters.count(server, "teltonika.frames.rejected", "reason", "codec15-imei-mismatch"))
                .isEqualTo(1);
        assertThat(ServerMeters.count(server, "teltonika.frames.received", "codec", "15")).isEqualTo(2);
    }

    @Test
    void udp_codec15Datagram_isDeadLetteredUnanswered_andNothingIsStored() throws Exception {
        InetSocketAddress udp = ItServer.loopback(server.udpAddress());
        try (DatagramSocket device = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            device.setSoTimeout(DeviceClient.READ_TIMEOUT_MS);
            byte[] codec15 = codec15Datagram(0x0F15, TestImeis.WIKI,
                    Frames.body(Frames.command(CommandFrame.codec15Message(TestImeis.WIKI, DEVICE_SECONDS, "hi"))));
            byte[] avl = Frames.udp(new UdpPacket(0x0A71, 1, TestImeis.WIKI,
                    new RandomAvl(16L).packet(CodecId.CODEC_8, 1)));

            device.send(new DatagramPacket(codec15, codec15.length, udp));
            device.send(new DatagramPacket(avl, avl.length, udp));

            // The first answer is the AVL datagram's ACK: the Codec 15 one got none.
            byte[] buffer = new byte[64];
            DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
            device.receive(reply);
            UdpAck ack = UdpAck.read(Unpooled.wrappedBuffer(Arrays.copyOf(buffer, reply.getLength())));
            assertThat(ack).isNotNull();
            assertThat(ack.packetId()).isEqualTo(0x0A71);
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> !deadLetters().isEmpty());
        assertThat(deadLetters()).singleElement().satisfies(letter -> {
            assertThat(letter.get("reason").asText()).isEqualTo("unknown-codec");
            assertThat(letter.get("detail").asText()).contains("codec 15");
        });
        assertThat(messages()).isEmpty();
    }

    /** A UDP datagram as PROTOCOL.md lays it out, around any body. */
    private static byte[] codec15Datagram(int packetId, String imei, byte[] body) {
        byte[] imeiBytes = imei.getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream rest = new ByteArrayOutputStream();
        rest.write(packetId >>> 8);
        rest.write(packetId);
        rest.write(0x01);
        rest.write(0x01);
        rest.write(imeiBytes.length >>> 8);
        rest.write(imeiBytes.length);
        rest.writeBytes(imeiBytes);
        rest.writeBytes(body);
        byte[] tail = rest.toByteArray();
        return Frames.concat(new byte[] {(byte) (tail.length >>> 8), (byte) tail.length}, tail);
    }
}
