package org.fleetpipe.teltonika.codec.avl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.fleetpipe.teltonika.codec.testing.Rejections.assertRejected;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors.Vector;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class AvlPacketDecoderTest {

    /** Codec 8 with a position west and south of Greenwich, below sea level, and unsigned-edge IO values. */
    static final String CODEC8_SIGNED = """
            08                       # codec 8
            01                       # number of data 1
            0000016B40D8EA30         # timestamp 1560161086000 ms
            01                       # priority: high
            D3E6AEFC                 # longitude -739856644 (-73.9856644 degrees)
            EBD1DD5C                 # latitude  -338567844 (-33.8567844 degrees)
            FE52                     # altitude -430 m
            0167                     # angle 359
            0B                       # 11 satellites
            0050                     # speed 80 km/h
            00                       # event IO id: none
            05                       # total IO count
            01  EF 01                # N1: id 239 = 1
            01  42 3A98              # N2: id 66 = 15000
            01  10 FFFFFFFF          # N4: id 16 = 4294967295 (u32 with the top bit set)
            02  4E FFFFFFFFFFFFFFFF  # N8: id 78 = 2^64 - 1
                0B 8000000000000000  #     id 11 = 2^63
            01                       # number of data 2
            """;

    /** Codec 8E with one variable-length (NX) element of 5 bytes. */
    static final String CODEC8E_NX = """
            8E                       # codec 8 extended
            01                       # number of data 1
            0000016B412CEE00         # timestamp 1560166592000 ms
            01                       # priority: high
            00000000 00000000        # longitude, latitude: no fix
            0000 0000 00 0000        # altitude, angle, satellites, speed
            0000                     # event IO id (u16): none
            0002                     # total IO count (u16)
            0001  00EF 01            # N1 (u16 count): id 239 = 1
            0000                     # N2
            0000                     # N4
            0000                     # N8
            0001                     # NX (u16 count)
                  0181 0005 0102A0B0FF  # id 385, length 5, value 01 02 A0 B0 FF
            01                       # number of data 2
            """;

    /** Codec 16: a generation type, and IO ids (and an event id) that need two bytes. */
    static final String CODEC16_WIDE_IDS = """
            10                       # codec 16
            01                       # number of data 1
            0000016BDBC78330         # timestamp 1562760414000 ms
            00                       # priority: low
            00000000 00000000 0000   # longitude, latitude, altitude
            8CA0                     # angle 36000: a u16 with the top bit set
            00                       # satellites
            8000                     # speed 32768: a u16 with the top bit set
            01F4                     # event IO id (u16): 500
            07                       # generation type: 7, periodical
            03                       # total IO count (u8)
            01  0101 05              # N1 (u8 count): id 257 (u16) = 5
            01  0C80 ABCD            # N2: id 3200 = 43981
            00                       # N4
            01  FFFF 0000000000000001  # N8: id 65535 = 1
            01                       # number of data 2
            """;

    private final AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);

    static List<Vector> avlVectors() {
        return GoldenVectors.ofKind("avl");
    }

    @Test
    void decode_whenNegativeLongitudeLatitudeAltitude_thenSigned() {
        AvlRecord r = decodeOne(CODEC8_SIGNED);

        assertThat(r.gps().longitude()).isEqualTo(-739_856_644);
        assertThat(r.gps().latitude()).isEqualTo(-338_567_844);
        assertThat(r.gps().altitude()).isEqualTo((short) -430);
        assertThat(r.gps()).isEqualTo(new GpsElement(-739_856_644, -338_567_844, (short) -430, 359, 11, 80));
        assertThat(r.timestamp()).isEqualTo(1_560_161_086_000L);
        assertThat(r.priority()).isEqualTo(1);
        assertThat(r.eventIoId()).isZero();
        assertThat(r.hasGenerationType()).isFalse();
    }

    @Test
    void decode_whenFixedValuesHaveTopBitSet_thenValueTextIsUnsignedDecimal() {
        AvlRecord r = decodeOne(CODEC8_SIGNED);

        assertThat(r.io()).containsExactly(
                new IoElement.Fixed(239, 1, 1),
                new IoElement.Fixed(66, 2, 15000),
                new IoElement.Fixed(16, 4, 0xFFFF_FFFFL),
                new IoElement.Fixed(78, 8, -1L),
                new IoElement.Fixed(11, 8, Long.MIN_VALUE));
        assertThat(r.io()).extracting(IoElement::valueText)
                .containsExactly("1", "15000", "4294967295", "18446744073709551615", "9223372036854775808");
    }

    @Test
    void decode_whenCodec8ENxElement_thenExactBytes() {
        AvlRecord r = decodeOne(CODEC8E_NX);

        assertThat(r.io()).hasSize(2);
        assertThat(r.io().get(0)).isEqualTo(new IoElement.Fixed(239, 1, 1));
        IoElement.Variable nx = (IoElement.Variable) r.io().get(1);
        assertThat(nx.id()).isEqualTo(385);
        assertThat(nx.length()).isEqualTo(5);
        assertThat(nx.value()).containsExactly(0x01, 0x02, 0xA0, 0xB0, 0xFF);
        assertThat(nx.valueText()).isEqualTo("0102a0b0ff");
    }

    @Test
    void decode_whenNxLengthAtLimit_thenAcceptedAndOverLimitLimitExceeded() {
        AvlPacketDecoder five = new AvlPacketDecoder(new DecodeLimits(16 * 1024, 255, 512, 5, 64));
        AvlPacketDecoder four = new AvlPacketDecoder(new DecodeLimits(16 * 1024, 255, 512, 4, 64));

        withBody(CODEC8E_NX, body -> assertThat(five.decode(body).size()).isEqualTo(1));
        withBody(CODEC8E_NX, body -> assertRejected(Reason.LIMIT_EXCEEDED, body, four::decode));
    }

    @Test
    void decode_whenNxLengthRunsPastBody_thenTruncated() {
        withBody(CODEC8E_NX.replace("0181 0005", "0181 0040"),
                body -> assertRejected(Reason.TRUNCATED, body, decoder::decode));
        withBody(CODEC8E_NX.replace("0181 0005", "0181 FFFF"),
                body -> assertRejected(Reason.LIMIT_EXCEEDED, body, decoder::decode));
    }

    @Test
    void decode_whenCodec16_thenGenerationTypeAndTwoByteIds() {
        AvlRecord r = decodeOne(CODEC16_WIDE_IDS);

        assertThat(r.generationType()).isEqualTo(7);
        assertThat(r.hasGenerationType()).isTrue();
        assertThat(r.eventIoId()).isEqualTo(500);
        assertThat(r.gps().angle()).isEqualTo(36000);
        assertThat(r.gps().speed()).isEqualTo(32768);
        assertThat(r.io()).containsExactly(
                new IoElement.Fixed(257, 1, 5),
                new IoElement.Fixed(3200, 2, 0xABCD),
                new IoElement.Fixed(65535, 8, 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {CODEC8_SIGNED, CODEC8E_NX, CODEC16_WIDE_IDS})
    void decode_whenHandBuiltBody_thenEncoderReproducesItByteForByte(String hex) {
        ByteBuf out = Unpooled.buffer();
        try {
            withBody(hex, body -> AvlPacketEncoder.writeBody(out, decoder.decode(body)));

            assertThat(Hex.of(out)).isEqualTo(Hex.of(Hex.bytes(hex)));
        } finally {
            out.release();
        }
    }

    @Test
    void decode_whenBodyStartsAfterReaderIndex_thenDecodedAndIndicesUntouched() {
        byte[] body = Hex.bytes(CODEC8_SIGNED);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer();
        try {
            in.writeBytes(new byte[] {0x77, 0x77}).writeBytes(body).writeByte(0x77);
            in.readerIndex(2).writerIndex(2 + body.length);

            assertThat(decoder.decode(in).size()).isEqualTo(1);
            assertThat(in.readerIndex()).isEqualTo(2);
            assertThat(in.writerIndex()).isEqualTo(2 + body.length);
        } finally {
            in.release();
        }
    }

    @Test
    void decode_whenZeroRecords_thenEmptyPacket() {
        // Not seen from real devices; the decoder takes it (the server then ACKs 0).
        for (String hex : List.of("08 00 00", "8E 00 00", "10 00 00")) {
            withBody(hex, body -> assertThat(decoder.decode(body).records()).isEmpty());
        }
    }

    @Test
    void decode_whenNumberOfData1And2Differ_thenRecordCountMismatch() {
        for (Vector v : avlVectors()) {
            byte[] body = body(v);
            body[body.length - 1]++;
            withBody(body, in -> assertRejected(Reason.RECORD_COUNT_MISMATCH, in, decoder::decode, v.name()));
        }
    }

    @Test
    void decode_whenMoreRecordsDeclaredThanBodyHolds_thenTruncated() {
        for (Vector v : avlVectors()) {
            byte[] body = withCounts(body(v), v.json().get("records").asInt() + 1);
            withBody(body, in -> assertRejected(Reason.TRUNCATED, in, decoder::decode, v.name()));
        }
    }

    @Test
    void decode_whenFewerRecordsDeclaredThanBodyHolds_thenRecordCountMismatch() {
        // Bytes left over after the declared records mean the counts do not describe the body.
        for (Vector v : avlVectors()) {
            int records = v.json().get("records").asInt();
            for (int declared = 0; declared < records; declared++) {
                byte[] body = withCounts(body(v), declared);
                withBody(body, in -> assertRejected(Reason.RECORD_COUNT_MISMATCH, in, decoder::decode, v.name()));
            }
        }
    }

    @Test
    void decode_whenRecordCountOverMaxRecords_thenLimitExceeded() {
        Vector twoRecords = GoldenVectors.ofKind("avl").get(2);
        AvlPacketDecoder one = new AvlPacketDecoder(new DecodeLimits(16 * 1024, 1, 512, 4096, 64));
        AvlPacketDecoder two = new AvlPacketDecoder(new DecodeLimits(16 * 1024, 2, 512, 4096, 64));

        withBody(body(twoRecords), in -> assertRejected(Reason.LIMIT_EXCEEDED, in, one::decode));
        withBody(body(twoRecords), in -> assertThat(two.decode(in).size()).isEqualTo(2));
        // Decided on the count alone, before looking for the bytes 255 records would need.
        withBody("08 FF FF", in -> assertRejected(Reason.LIMIT_EXCEEDED, in, one::decode));
    }

    @Test
    void decode_whenIoTotalOverMaxIoPerRecord_thenLimitExceededBeforeReadingGroups() {
        AvlPacketDecoder four = new AvlPacketDecoder(new DecodeLimits(16 * 1024, 255, 4, 4096, 64));
        AvlPacketDecoder five = new AvlPacketDecoder(new DecodeLimits(16 * 1024, 255, 5, 4096, 64));
        Vector fiveIo = GoldenVectors.ofKind("avl").get(3);

        withBody(body(fiveIo), in -> assertRejected(Reason.LIMIT_EXCEEDED, in, four::decode));
        withBody(body(fiveIo), in -> assertThat(five.decode(in).size()).isEqualTo(1));
        // 65535 elements claimed in a 38-byte record: the limit answers before any size is taken from it.
        withBody(CODEC8E_NX.replace("0002                     # total", "FFFF # total"),
                in -> assertRejected(Reason.LIMIT_EXCEEDED, in, decoder::decode));
    }

    @Test
    void decode_whenIoTotalMoreThanTheGroupsHold_thenIoCountMismatch() {
        withBody(CODEC8_SIGNED.replace("05                       # total", "06 # total"),
                in -> assertRejected(Reason.IO_COUNT_MISMATCH, in, decoder::decode));
        withBody(CODEC8E_NX.replace("0002                     # total", "0003 # total"),
                in -> assertRejected(Reason.IO_COUNT_MISMATCH, in, decoder::decode));
        withBody(CODEC16_WIDE_IDS.replace("03                       # total", "04 # total"),
                in -> assertRejected(Reason.IO_COUNT_MISMATCH, in, decoder::decode));
    }

    @Test
    void decode_whenIoTotalLessThanTheGroupsHold_thenIoCountMismatch() {
        withBody(CODEC8_SIGNED.replace("05                       # total", "04 # total"),
                in -> assertRejected(Reason.IO_COUNT_MISMATCH, in, decoder::decode));
        // Only the NX group pushes the count over: the variable group is counted too.
        withBody(CODEC8E_NX.replace("0002                     # total", "0001 # total"),
                in -> assertRejected(Reason.IO_COUNT_MISMATCH, in, decoder::decode));
        withBody(CODEC16_WIDE_IDS.replace("03                       # total", "00 # total"),
                in -> assertRejected(Reason.IO_COUNT_MISMATCH, in, decoder::decode));
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void decode_whenBodyCutAtEveryLength_thenCodecExceptionOnly(Vector v) {
        byte[] body = body(v);
        for (int length = 0; length < body.length; length++) {
            assertOnlyCodecException(Arrays.copyOf(body, length), v.name() + " cut to " + length);
        }
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void decode_whenBodyCutAtEveryLengthWithCountByteKept_thenOnlyTruncationWrongAndCodecException(Vector v) {
        // Number of data 2 moved to the new end, so the counts agree and only the missing bytes are wrong.
        byte[] body = body(v);
        Map<Reason, Integer> reasons = new EnumMap<>(Reason.class);
        for (int length = 3; length < body.length; length++) {
            byte[] cut = Arrays.copyOf(body, length);
            cut[length - 1] = body[body.length - 1];
            Reason reason = assertOnlyCodecException(cut, v.name() + " cut to " + length + " + count");
            reasons.merge(reason, 1, Integer::sum);
        }
        assertThat(reasons.keySet()).as(v.name() + " " + reasons)
                .isSubsetOf(Reason.TRUNCATED, Reason.RECORD_COUNT_MISMATCH, Reason.IO_COUNT_MISMATCH);
    }

    @ParameterizedTest
    @ValueSource(strings = {CODEC8_SIGNED, CODEC8E_NX, CODEC16_WIDE_IDS})
    void decode_whenHandBuiltBodyCutAtEveryLength_thenCodecExceptionOnly(String hex) {
        byte[] body = Hex.bytes(hex);
        for (int length = 0; length < body.length; length++) {
            byte[] cut = Arrays.copyOf(body, length);
            assertOnlyCodecException(cut, "cut to " + length);
            if (length >= 3) {
                cut[length - 1] = 0x01;
                assertOnlyCodecException(cut, "cut to " + length + " + count");
            }
        }
    }

    @Test
    void decode_whenShorterThanThreeBytes_thenTruncated() {
        for (String hex : List.of("", "08", "08 01")) {
            withBody(hex, in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
        }
    }

    @Test
    void decode_whenCommandCodecOrUnknownCodec_thenUnknownCodec() {
        for (String hex : List.of("0C 01 01", "0D 01 01", "0E 01 01", "09 01 01", "00 01 01", "FF 01 01")) {
            withBody(hex, in -> assertRejected(Reason.UNKNOWN_CODEC, in, decoder::decode));
        }
    }

    @Test
    void decode_whenGoldenVectorBody_thenCodecMatches() {
        for (Vector v : avlVectors()) {
            withBody(body(v), in -> assertThat(decoder.decode(in).codec()).isEqualTo(codecOf(v)));
        }
    }

    private Reason assertOnlyCodecException(byte[] body, String context) {
        ByteBuf in = Unpooled.wrappedBuffer(body);
        try {
            Throwable thrown = catchThrowable(() -> decoder.decode(in));
            assertThat(thrown).as("%s: %s", context, Hex.of(body)).isInstanceOf(CodecException.class);
            assertThat(in.readerIndex()).as(context).isZero();
            return ((CodecException) thrown).reason();
        } finally {
            in.release();
        }
    }

    private AvlRecord decodeOne(String hex) {
        AvlRecord[] out = new AvlRecord[1];
        withBody(hex, in -> {
            AvlPacket packet = decoder.decode(in);
            assertThat(packet.size()).isEqualTo(1);
            out[0] = packet.records().get(0);
        });
        return out[0];
    }

    private static CodecId codecOf(Vector v) {
        return switch (v.codec()) {
            case "8" -> CodecId.CODEC_8;
            case "8E" -> CodecId.CODEC_8E;
            default -> CodecId.CODEC_16;
        };
    }

    /** Codec id through number of data 2 of a TCP vector. */
    static byte[] body(Vector v) {
        byte[] frame = v.bytes();
        return Arrays.copyOfRange(frame, 8, frame.length - 4);
    }

    private static byte[] withCounts(byte[] body, int count) {
        byte[] out = body.clone();
        out[1] = (byte) count;
        out[out.length - 1] = (byte) count;
        return out;
    }

    private static void withBody(String hex, Consumer<ByteBuf> test) {
        withBody(Hex.bytes(hex), test);
    }

    /** The body in a leak-tracked buffer, released afterwards. */
    private static void withBody(byte[] body, Consumer<ByteBuf> test) {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer(Math.max(1, body.length)).writeBytes(body);
        try {
            test.accept(in);
        } finally {
            in.release();
        }
    }
}
