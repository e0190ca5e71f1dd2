package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScoredValue;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
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

/** A device on a real socket, the real server, a real Redis: what is acked is exactly what is stored. */
@WithRedis
class TcpIngestionIT {

    private IngestionServer server;
    private TelemetryStream stream;
    private InetSocketAddress tcp;

    @BeforeEach
    void startServer(RedisFixture redis) throws Exception {
        server = ItServer.start(redis);
        tcp = ItServer.loopback(server.tcpAddress());
        stream = new TelemetryStream(redis);
    }

    @AfterEach
    void stopServer() throws Exception {
        stream.close();
        server.close();
    }

    @Test
    void login_whenImeiValid_thenAnswers01() throws Exception {
        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
        }
    }

    @Test
    void keepAlive_whenSentBeforeTheLogin_thenTheLoginAnswers01_andAPacketIsAcknowledged() throws Exception {
        // Real trackers send 0xFF before their IMEI; the keep-alive and the login in separate writes.
        GoldenVectors.Vector vector = GoldenVectors.ofKind("avl").get(0);
        try (DeviceClient device = DeviceClient.connect(tcp)) {
            device.send(new byte[] {(byte) 0xFF});
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            device.send(vector.bytes());
            assertThat(device.readAck()).isEqualTo(vector.json().get("records").asLong());
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(stream.entries()).isNotEmpty());
    }

    @Test
    void login_whenCheckDigitWrong_thenAnswers00AndServerCloses() throws Exception {
        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(TestImeis.BAD_LUHN)).isEqualTo(0x00);
            assertThat(device.readUntilClosed()).isEmpty();
        }
    }

    @Test
    void goldenPackets_whenSentAfterLogin_thenAckedWithCountAndStoredAsContractEntries() throws Exception {
        List<GoldenVectors.Vector> vectors = GoldenVectors.ofKind("avl");
        assertThat(vectors).extracting(GoldenVectors.Vector::codec).contains("8", "8E", "16");
        List<Map<String, String>> expected = new ArrayList<>();
        long sentAt = System.currentTimeMillis();

        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            for (GoldenVectors.Vector vector : vectors) {
                device.send(vector.bytes());
                assertThat(device.readAck()).as(vector.name()).isEqualTo(vector.json().get("records").asLong());
                expected.addAll(ExpectedEntries.of(TestImeis.WIKI, vector, server.instanceId()));
            }
        }
        long ackedAt = System.currentTimeMillis();

        TelemetryStream.assertStored(stream.entries(), expected, sentAt, ackedAt);
    }

    @Test
    void randomPackets_whenEncodedWithEveryIoWidth_thenStoredExactly() throws Exception {
        RandomAvl random = new RandomAvl(System.nanoTime());
        List<Map<String, String>> expected = new ArrayList<>();
        String imei = TestImeis.numbered(42);
        long sentAt = System.currentTimeMillis();

        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(imei)).isEqualTo(0x01);
            // The first two packets after a login take the script (they may repeat earlier ones), the
            // rest a MULTI block of plain commands: both must store exactly the same entries.
            List<CodecId> codecs = List.of(CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16, CodecId.CODEC_8,
                    CodecId.CODEC_8E, CodecId.CODEC_16);
            for (int i = 0; i < codecs.size(); i++) {
                if (i == 2) {
                    // The event loop's own connection opened with the first write; the blocks need it.
                    await().atMost(Duration.ofSeconds(20)).until(() -> meter("teltonika.telemetry.pipes.ready")
                            .gauge().value() > 0);
                }
                AvlPacket packet = random.packet(codecs.get(i), 10);
                device.send(Frames.avl(packet));
                assertThat(device.readAck()).as("seed %d codec %s", random.seed(), codecs.get(i)).isEqualTo(10);
                expected.addAll(ExpectedEntries.of(imei, packet, server.instanceId()));
            }
        }
        long ackedAt = System.currentTimeMillis();
        assertThat(meter("teltonika.telemetry.packets.written").tag("path", "script").functionCounter().count())
                .isEqualTo(2);
        assertThat(meter("teltonika.telemetry.packets.written").tag("path", "block").functionCounter().count())
                .isEqualTo(4);

        TelemetryStream.assertStored("seed " + random.seed() + ":", stream.entries(), expected, sentAt, ackedAt);
    }

    @Test
    void packets_whenSentAheadInOneWrite_thenAckedInOrderAndAllStored() throws Exception {
        RandomAvl random = new RandomAvl(7L);
        AvlPacket first = random.packet(CodecId.CODEC_8E, 3);
        AvlPacket second = random.packet(CodecId.CODEC_8E, 5);

        try (DeviceClient device = DeviceClient.connect(tcp)) {
            // Both packets in one segment, ahead of their ACKs. (Before its login answer a device may
            // send nothing more: that closes the connection, see LoginBarrierPipelineTest.)
            assertThat(device.login(TestImeis.OTHER)).isEqualTo(0x01);
            device.send(Frames.concat(Frames.avl(first), Frames.avl(second)));
            assertThat(device.readAck()).isEqualTo(3);
            assertThat(device.readAck()).isEqualTo(5);
        }

        List<Map<String, String>> expected = new ArrayList<>(ExpectedEntries.of(TestImeis.OTHER, first,
                server.instanceId()));
        expected.addAll(ExpectedEntries.of(TestImeis.OTHER, second, server.instanceId()));
        assertThat(stream.entries()).map(ExpectedEntries::comparable).containsExactlyElementsOf(expected);
    }

    @Test
    void badCrc_whenSent_thenNoAckServerClosesAndFrameDeadLettered() throws Exception {
        byte[] frame = Frames.withBadCrc(GoldenVectors.ofKind("avl").get(0).bytes());
        long sentAt = System.currentTimeMillis();

        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            device.send(frame);
            assertThat(device.readUntilClosed()).as("bytes before the close: no ACK").isEmpty();
        }

        // Dead letters are written without waiting for them, so they may land just after the close.
        List<ScoredValue<String>> letters = await().atMost(Duration.ofSeconds(10))
                .until(stream::frameDeadLetters, l -> !l.isEmpty());
        assertThat(letters).hasSize(1);
        JsonNode letter = new ObjectMapper().readTree(letters.get(0).getValue());
        assertThat(letter.get("hex").asText()).isEqualTo(HexFormat.of().formatHex(frame));
        assertThat(letter.get("reason").asText()).isEqualTo("bad-crc");
        assertThat(letter.get("imei").asText()).isEqualTo(TestImeis.WIKI);
        assertThat(letter.get("instance").asText()).isEqualTo(server.instanceId());
        assertThat(letter.get("at").asLong()).isBetween(sentAt, System.currentTimeMillis());
        assertThat((long) letters.get(0).getScore()).as("score = at").isEqualTo(letter.get("at").asLong());
        assertThat(stream.entries()).as("nothing of a refused frame is stored").isEmpty();
    }

    private io.micrometer.core.instrument.search.RequiredSearch meter(String name) {
        return server.metrics().registry().get(name);
    }
}
