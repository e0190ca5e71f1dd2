package org.fleetpipe.teltonika.codec.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.fleetpipe.teltonika.codec.testing.Rejections.assertRejected;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Crc16Ibm;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors.Vector;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every way TcpFrameReader refuses bytes: the reason, and the input left exactly where it was. */
class TcpFrameReaderRejectionTest {

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);

    static List<Vector> vectors() {
        return GoldenVectors.all();
    }

    static List<Vector> avlVectors() {
        // The command vectors are shorter than the smallest maxFrameBytes DecodeLimits allows (45).
        return GoldenVectors.ofKind("avl");
    }

    @Test
    void tryRead_whenOnlyHeaderDeclaresMoreThanMaxFrameBytes_thenFrameTooLarge() {
        // 1280 is the common device cap; 1269 body bytes + 12 framing bytes is one over it.
        TcpFrameReader capped = new TcpFrameReader(DecodeLimits.DEFAULTS.withMaxFrameBytes(1280));

        withBuffer("00000000 000004F5", in -> assertRejected(Reason.FRAME_TOO_LARGE, in, capped::tryRead));
        withBuffer("00000000 000004F4", in -> {
            assertThat(capped.tryRead(in)).as("exactly at the limit: wait for the body").isNull();
            assertThat(in.readerIndex()).isZero();
        });
    }

    @Test
    void tryRead_whenDeclaredLengthIsMaxU32_thenFrameTooLargeWithoutOverflow() {
        withBuffer("00000000 FFFFFFFF", in -> assertRejected(Reason.FRAME_TOO_LARGE, in, reader::tryRead));
        withBuffer("00000000 80000000", in -> assertRejected(Reason.FRAME_TOO_LARGE, in, reader::tryRead));
        withBuffer("00000000 7FFFFFF5", in -> assertRejected(Reason.FRAME_TOO_LARGE, in, reader::tryRead));
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void tryRead_whenFrameExactlyMaxFrameBytes_thenAcceptedAndOneByteLessRejected(Vector v) {
        byte[] bytes = v.bytes();
        TcpFrameReader exact = new TcpFrameReader(DecodeLimits.DEFAULTS.withMaxFrameBytes(bytes.length));
        TcpFrameReader tooSmall = new TcpFrameReader(DecodeLimits.DEFAULTS.withMaxFrameBytes(bytes.length - 1));

        try (TcpStream stream = new TcpStream(exact)) {
            assertThat(stream.feed(bytes)).hasSize(1);
        }
        withBuffer(v.hex(), in -> assertRejected(Reason.FRAME_TOO_LARGE, in, tooSmall::tryRead));
    }

    @Test
    void tryRead_whenFirstByteNeitherZeroNorPing_thenBadPreambleFromThatByteAlone() {
        for (int first = 0x01; first <= 0xFE; first++) {
            ByteBuf in = Unpooled.buffer(1).writeByte(first);
            try {
                assertRejected(Reason.BAD_PREAMBLE, in, reader::tryRead, "first byte " + first);
            } finally {
                in.release();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"00000001", "00000100", "0000FFFF", "00000001 00000036", "00008000 00000036 08"})
    void tryRead_whenPreambleNotFourZeros_thenBadPreamble(String hex) {
        withBuffer(hex, in -> assertRejected(Reason.BAD_PREAMBLE, in, reader::tryRead));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void tryRead_whenDeclaredBodyShorterThanThree_thenBadLengthFromHeaderAlone(int bodyLength) {
        withBuffer("00000000 0000000" + bodyLength,
                in -> assertRejected(Reason.BAD_LENGTH, in, reader::tryRead));
        // Even when the bytes it declares (and more) are present.
        withBuffer("00000000 0000000" + bodyLength + " 080108 00000000",
                in -> assertRejected(Reason.BAD_LENGTH, in, reader::tryRead));
    }

    @Test
    void tryRead_whenDeclaredBodyIsThree_thenSmallestFrameAccepted() {
        // Codec id, count 0, count 0: what the reader allows; judging zero records is the decoder's job.
        byte[] body = Hex.bytes("08 00 00");
        ByteBuf in = Unpooled.buffer();
        in.writeInt(0).writeInt(3).writeBytes(body).writeInt(Crc16Ibm.compute(body, 0, 3));
        try {
            Frame frame = reader.tryRead(in);
            assertThat(frame).isInstanceOf(DataFrame.class);
            assertThat(((DataFrame) frame).bodyLength()).isEqualTo(3);
            ((DataFrame) frame).release();
        } finally {
            in.release();
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenAnyBodyOrCrcByteCorrupted_thenBadCrc(Vector v) {
        byte[] bytes = v.bytes();
        for (int position = 8; position < bytes.length; position++) {
            // Every single-bit error, and the whole byte inverted: CRC-16 must catch all of them.
            for (int mask : new int[] {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF}) {
                byte[] corrupt = bytes.clone();
                corrupt[position] ^= (byte) mask;
                ByteBuf in = Unpooled.wrappedBuffer(corrupt);
                try {
                    assertRejected(Reason.BAD_CRC, in, reader::tryRead,
                            v.name() + " byte " + position + " xor 0x" + Integer.toHexString(mask));
                } finally {
                    in.release();
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenCrcHighBytesNonZero_thenBadCrc(Vector v) {
        // The CRC field is a u32 whose high half must be zero; a match on the low half alone is not enough.
        byte[] bytes = v.bytes();
        for (int position : new int[] {bytes.length - 4, bytes.length - 3}) {
            byte[] corrupt = bytes.clone();
            corrupt[position] = 0x01;
            withBuffer(Hex.of(corrupt), in -> assertRejected(Reason.BAD_CRC, in, reader::tryRead));
        }
    }

    @Test
    void tryRead_whenUnknownCodecIdWithCorrectCrc_thenUnknownCodec() {
        Set<Integer> known = Set.of(0x08, 0x8E, 0x10, 0x0C, 0x0D, 0x0E, 0x0F);
        byte[] bytes = GoldenVectors.ofKind("avl").get(0).bytes();
        for (int codec = 0; codec <= 0xFF; codec++) {
            bytes[8] = (byte) codec;
            recomputeCrc(bytes);
            ByteBuf in = Unpooled.wrappedBuffer(bytes.clone());
            try {
                if (known.contains(codec)) {
                    Frame frame = reader.tryRead(in);
                    assertThat(((DataFrame) frame).codec()).isEqualTo(CodecId.fromWire(codec));
                    ((DataFrame) frame).release();
                } else {
                    assertRejected(Reason.UNKNOWN_CODEC, in, reader::tryRead, "codec byte " + codec);
                }
            } finally {
                in.release();
            }
        }
    }

    @Test
    void tryRead_whenLoginLengthOverLimit_thenBadLoginBeforeTheTextArrives() {
        withBuffer("0041", in -> assertRejected(Reason.BAD_LOGIN, in, reader::tryRead));
        withBuffer("00FF 3335", in -> assertRejected(Reason.BAD_LOGIN, in, reader::tryRead));

        TcpFrameReader strict = new TcpFrameReader(new DecodeLimits(16 * 1024, 255, 512, 4096, 15));
        withBuffer("0010 33353230393330383134353232353130",
                in -> assertRejected(Reason.BAD_LOGIN, in, strict::tryRead));
        withBuffer("000F 333532303933303831343532323531",
                in -> assertThat(strict.tryRead(in)).isEqualTo(new LoginFrame("352093081452251")));
    }

    @Test
    void tryRead_whenLoginLengthHasHighByte_thenBadPreamble() {
        // 256 and up cannot be told from garbage by the first byte; with the default limit of 64 that is fine.
        withBuffer("0100", in -> assertRejected(Reason.BAD_PREAMBLE, in, reader::tryRead));
    }

    @Test
    void tryRead_whenLoginLengthAbove255WithinConfiguredLimit_thenLimitsRefuseOrReaderAccepts() {
        DecodeLimits limits;
        try {
            limits = new DecodeLimits(16 * 1024, 255, 512, 4096, 300);
        } catch (IllegalArgumentException refused) {
            return;
        }
        TcpFrameReader lenient = new TcpFrameReader(limits);
        String text = "7".repeat(300);
        try (TcpStream stream = new TcpStream(lenient)) {
            assertThat(stream.feed(TcpFrameReaderTest.login(text))).containsExactly(new LoginFrame(text));
        }
    }

    @Test
    void tryRead_whenValidFrameThenGarbage_thenFrameCutAndGarbageLeftAtReaderIndex() {
        Vector v = GoldenVectors.ofKind("avl").get(0);
        byte[] garbage = Hex.bytes("47 45 54 20");
        try (TcpStream stream = new TcpStream(reader)) {
            Throwable thrown = catchThrowable(() -> stream.feed(TcpFrameReaderTest.concat(v.bytes(), garbage)));

            assertThat(thrown).isInstanceOf(CodecException.class);
            assertThat(((CodecException) thrown).reason()).isEqualTo(Reason.BAD_PREAMBLE);
            assertThat(stream.frames()).hasSize(1);
            assertThat(stream.bufferedBytes()).as("the rejected bytes, for a dead letter").isEqualTo(garbage);
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenAnyHeaderBitFlipped_thenNeverADataFrame(Vector v) {
        // Preamble and length are outside the CRC; limits, the preamble check and the CRC position must
        // still stop a damaged header from producing a data frame. (A flip in byte 1 reads as a login
        // length: the login text then fails Imei.parse, which is the server's call.)
        byte[] bytes = v.bytes();
        for (int position = 0; position < 8; position++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] corrupt = bytes.clone();
                corrupt[position] ^= (byte) (1 << bit);
                ByteBuf in = Unpooled.wrappedBuffer(corrupt);
                try {
                    Frame frame = reader.tryRead(in);
                    assertThat(frame instanceof DataFrame).as("%s header byte %d bit %d gave %s", v.name(), position,
                            bit, frame).isFalse();
                } catch (CodecException expected) {
                    assertThat(in.readerIndex()).isZero();
                } finally {
                    in.release();
                }
            }
        }
    }

    private static void recomputeCrc(byte[] frame) {
        int crc = Crc16Ibm.compute(frame, 8, frame.length - 12);
        frame[frame.length - 4] = 0;
        frame[frame.length - 3] = 0;
        frame[frame.length - 2] = (byte) (crc >>> 8);
        frame[frame.length - 1] = (byte) crc;
    }

    /** A leak-tracked buffer holding {@code hex}, released afterwards. */
    private static void withBuffer(String hex, Consumer<ByteBuf> body) {
        byte[] bytes = Hex.bytes(hex);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
        try {
            body.accept(in);
        } finally {
            in.release();
        }
    }
}
