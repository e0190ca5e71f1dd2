package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.sendByteByByte;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The ACK rule: a packet's record count goes back only after the writer says every record is stored. */
class TelemetryAckPipelineTest {

    private PipelineHarness harness = new PipelineHarness();

    @AfterEach
    void closeChannels() {
        harness.close();
    }

    private static GoldenVectors.Vector golden(String name) {
        return GoldenVectors.all().stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow();
    }

    private static byte[] ack(int records) {
        return new byte[] {0, 0, (byte) (records >>> 8), (byte) records};
    }

    @Test
    void packet_whenWriteOutstanding_thenNoAckUntilWriteCompletesAndReadingGoesOn() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        long before = System.currentTimeMillis();

        send(channel, golden("codec8-example-3").bytes());
        channel.runPendingTasks();

        assertThat(outbound(channel)).as("ACK before the records are stored").isEmpty();
        assertThat(channel.config().isAutoRead())
                .as("still reading: nothing waits behind the packet (a device waits for its ACK)").isTrue();
        assertThat(harness.writer.count()).isEqualTo(1);
        FakeTelemetryWriter.Write write = harness.writer.write(0);
        assertThat(write.imei().value()).isEqualTo(TestImeis.WIKI);
        assertThat(write.packet().codec()).isEqualTo(CodecId.CODEC_8);
        assertThat(write.packet().size()).isEqualTo(2);
        assertThat(write.receivedAtMillis()).isBetween(before, System.currentTimeMillis());

        write.succeed();
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEqualTo(ack(2));
        assertThat(channel.config().isAutoRead()).as("autoRead once the ACK is out").isTrue();
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.recordsWritten("8")).isEqualTo(2);
    }

    @Test
    void packet_whenWriteFails_thenNoAckAndClosed() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        send(channel, golden("codec8-example-1").bytes());

        harness.writer.write(0).fail("redis down");
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.redisErrors("telemetry-write")).isEqualTo(1);
        assertThat(harness.closed("redis-failure")).isEqualTo(1);
        assertThat(harness.recordsWritten("8")).isZero();
    }

    @Test
    void packet_whenDeviceLeftBeforeWriteCompletes_thenNothingWrittenBack() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        send(channel, golden("codec8-example-1").bytes());
        channel.close();

        harness.writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEmpty();
        assertThat(harness.recordsWritten("8")).as("stored all the same").isEqualTo(1);
    }

    @Test
    void packets_whenCoalescedInOneRead_thenSecondWrittenOnlyAfterFirstAck() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, Frames.concat(golden("codec8-example-3").bytes(), golden("codec8-example-1").bytes()));
        channel.runPendingTasks();

        assertThat(harness.writer.count()).as("second packet handed on while the first is unacked").isEqualTo(1);
        assertThat(channel.config().isAutoRead()).isFalse();

        harness.writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEqualTo(ack(2));
        assertThat(harness.writer.count()).isEqualTo(2);
        assertThat(harness.writer.write(1).packet().size()).isEqualTo(1);
        assertThat(channel.config().isAutoRead()).as("the second write is outstanding").isFalse();

        harness.writer.write(1).succeed();
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEqualTo(ack(1));
        assertThat(channel.config().isAutoRead()).isTrue();
    }

    @Test
    void loginAndPacket_whenInOneRead_thenClosedAndNothingStored() {
        // A device waits for the login answer; a packet behind the login frame is never buffered.
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.concat(Frames.login(TestImeis.WIKI), golden("codec8-example-3").bytes()));
        channel.runPendingTasks();

        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.writer.count()).isZero();
        assertThat(harness.rejected("not-logged-in")).isEqualTo(1);
    }

    @Test
    void packet_whenArrivingOneByteAtATime_thenWrittenAndAckedOnce() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        sendByteByByte(channel, golden("codec16-example-1").bytes());
        harness.writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(harness.writer.count()).isEqualTo(1);
        assertThat(outbound(channel)).isEqualTo(ack(2));
    }

    @Test
    void frames_whenExactlyQueueLimitAhead_thenAllAckedInOrder() {
        harness.close();
        harness = new PipelineHarness(Map.of("limits.max-queued-frames", 2));
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        // One being written plus two queued: exactly at the limit.
        send(channel, Frames.repeat(golden("codec8-example-3").bytes(), 3));
        for (int i = 0; i < 3; i++) {
            assertThat(harness.writer.count()).isEqualTo(i + 1);
            harness.writer.write(i).succeed();
            channel.runPendingTasks();
        }

        assertThat(outbound(channel)).isEqualTo(Frames.repeat(ack(2), 3));
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void frames_whenMoreQueuedThanLimit_thenClosedWithoutAck() {
        harness.close();
        harness = new PipelineHarness(Map.of("limits.max-queued-frames", 2));
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, Frames.repeat(golden("codec8-example-3").bytes(), 4));

        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.rejected("too-many-queued-frames")).isEqualTo(1);
        assertThat(harness.closed("too-many-queued-frames")).isEqualTo(1);
        harness.writer.write(0).succeed();
        channel.runPendingTasks();
        assertThat(outbound(channel)).isEmpty();
        assertThat(harness.writer.count()).as("queued frames are dropped, not written").isEqualTo(1);
    }

    @Test
    void commandResponse_whenLoggedIn_thenNoCountAckAndConnectionKeepsServing() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, Frames.command(CommandFrame.codec12Response("Param ID:2001 New Val:internet")));
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.writer.count()).isZero();
        // The sequencer must have been released: the next packet is handled at once.
        send(channel, golden("codec8-example-1").bytes());
        harness.writer.write(0).succeed();
        channel.runPendingTasks();
        assertThat(outbound(channel)).isEqualTo(ack(1));
    }

    static List<GoldenVectors.Vector> avlVectors() {
        return GoldenVectors.ofKind("avl");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("avlVectors")
    void goldenPacket_whenStored_thenAckIsVectorsRecordCount(GoldenVectors.Vector vector) {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, vector.bytes());
        FakeTelemetryWriter.Write write = harness.writer.write(0);
        assertThat(write.packet().codec().label()).isEqualTo(vector.codec());
        assertThat(write.packet().size()).isEqualTo(vector.json().get("records").asInt());
        write.succeed();
        channel.runPendingTasks();

        assertThat(Hex.of(outbound(channel))).isEqualTo(vector.json().get("ack_hex").asText().toUpperCase());
    }

    @Test
    void goldenVectors_whenListed_thenCoverAllThreeAvlCodecs() {
        // Guards the parameterized test above against a vector file that lost a codec.
        assertThat(avlVectors()).extracting(GoldenVectors.Vector::codec).contains("8", "8E", "16");
    }

    @Test
    void randomPacket_whenEncodedByCodec_thenDecodedPacketHandedToWriterUnchanged() {
        RandomAvl random = new RandomAvl(20240601L);
        for (CodecId codec : List.of(CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16)) {
            EmbeddedChannel channel = harness.loggedIn(TestImeis.numbered(codec.wire()));
            AvlPacket packet = random.packet(codec, 10);

            send(channel, Frames.avl(packet));
            FakeTelemetryWriter.Write write = harness.writer.writes().get(harness.writer.count() - 1);
            write.succeed();
            channel.runPendingTasks();

            assertThat(write.packet()).as("seed %d codec %s", random.seed(), codec).isEqualTo(packet);
            assertThat(outbound(channel)).isEqualTo(ack(10));
        }
    }
}
