package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.RecordingDeadLetters.Letter;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way a device frame is refused ends the same: no ACK, the bytes and the reason in the
 * dead letters, a rejected-frame metric, and a closed connection (framing is not trusted after).
 */
class RejectedFramePipelineTest {

    /** The default limits.max-frame-bytes of reference.conf. */
    private static final int MAX_FRAME_BYTES = 16384;

    private final PipelineHarness harness = new PipelineHarness();

    @AfterEach
    void closeChannels() {
        harness.close();
    }

    private static byte[] golden(String name) {
        return GoldenVectors.all().stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow().bytes();
    }

    /** A header declaring a body such that the whole frame is {@code frameBytes} long. */
    private static byte[] headerOfFrame(int frameBytes) {
        int body = frameBytes - Frames.HEADER_BYTES - Frames.CRC_BYTES;
        return new byte[] {0, 0, 0, 0, (byte) (body >>> 24), (byte) (body >>> 16), (byte) (body >>> 8), (byte) body};
    }

    static Stream<Arguments> rejectedFrames() {
        byte[] codec8 = golden("codec8-example-1");
        byte[] body = Frames.body(codec8);

        byte[] unknownCodec = body.clone();
        unknownCodec[0] = 0x09;

        byte[] countMismatch = body.clone();
        countMismatch[countMismatch.length - 1] = 0x02;

        // One record declared, but the body ends 20 bytes into it.
        byte[] truncated = Frames.concat(Arrays.copyOfRange(body, 0, 22), new byte[] {0x01});

        return Stream.of(
                Arguments.of("bad-crc", Frames.withBadCrc(codec8)),
                Arguments.of("unknown-codec", Frames.tcpFrame(unknownCodec)),
                Arguments.of("record-count-mismatch", Frames.tcpFrame(countMismatch)),
                Arguments.of("frame-too-large", headerOfFrame(MAX_FRAME_BYTES + 1)),
                Arguments.of("truncated", Frames.tcpFrame(truncated)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejectedFrames")
    void frame_whenRejected_thenNoAckDeadLetteredCountedAndClosed(String reason, byte[] frame) {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, frame);
        channel.runPendingTasks();

        assertThat(outbound(channel)).as("no ACK for a refused frame").isEmpty();
        assertThat(harness.writer.count()).as("nothing of a refused frame is stored").isZero();
        assertThat(harness.deadLetters.letters()).singleElement().satisfies(letter -> {
            assertThat(letter.reason()).isEqualTo(reason);
            assertThat(letter.imei()).isEqualTo(TestImeis.WIKI);
            assertThat(letter.hex()).isEqualTo(Hex.of(frame));
        });
        assertThat(harness.rejected(reason)).isEqualTo(1);
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.closed("rejected-frame")).isEqualTo(1);
    }

    @Test
    void header_whenDeclaredFrameExactlyAtLimit_thenWaitsForTheBody() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, headerOfFrame(MAX_FRAME_BYTES));

        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.deadLetters.letters()).isEmpty();
    }

    @Test
    void frame_whenRejectedAfterGoodPacketInSameRead_thenGoodPacketNotAcked() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, Frames.concat(golden("codec8-example-2"), Frames.withBadCrc(golden("codec8-example-1"))));
        harness.writer.write(0).succeed();
        channel.runPendingTasks();

        // The connection is gone before the first write completed; the device resends both.
        assertThat(channel.isOpen()).isFalse();
        assertThat(outbound(channel)).isEmpty();
        assertThat(harness.deadLetters.letters()).extracting(Letter::reason).containsExactly("bad-crc");
    }

    @Test
    void frame_whenBadCrcBeforeLogin_thenRefusedOnItsPreambleAndNotDeadLettered() {
        EmbeddedChannel channel = harness.connect();
        byte[] frame = Frames.withBadCrc(golden("codec8-example-1"));

        send(channel, frame);

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.deadLetters.letters()).as("anyone can send it: nothing is stored").isEmpty();
        assertThat(harness.rejected("not-logged-in")).isEqualTo(1);
        assertThat(harness.rejected("bad-crc")).isZero();
    }

    @Test
    void bytes_whenNotTeltonikaBeforeLogin_thenDeadLetterMarkedUnauthenticated() {
        EmbeddedChannel channel = harness.connect();

        send(channel, "GET /".getBytes(StandardCharsets.US_ASCII));

        assertThat(harness.deadLetters.letters()).singleElement().satisfies(letter -> {
            assertThat(letter.origin().loggedIn()).isFalse();
            assertThat(letter.imei()).isNull();
        });
    }

    @Test
    void bytes_whenNotTeltonikaAtAll_thenBadPreambleDeadLetteredAndClosed() {
        EmbeddedChannel channel = harness.connect();
        byte[] http = "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

        send(channel, http);

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.deadLetters.letters()).extracting(Letter::reason).containsExactly("bad-preamble");
        assertThat(harness.rejected("bad-preamble")).isEqualTo(1);
    }
}
