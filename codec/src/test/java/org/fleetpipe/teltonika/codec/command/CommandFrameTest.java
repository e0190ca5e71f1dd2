package org.fleetpipe.teltonika.codec.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fleetpipe.teltonika.codec.testing.Rejections.assertRejected;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.junit.jupiter.api.Test;

/**
 * Codec 12/13/14 decoding, encoding and rejections. Sending the wiki's two commands byte for byte
 * is in GoldenVectorTest. Frames marked "hand-built" have CRCs computed outside this codebase.
 */
class CommandFrameTest {

    private static final long SEED = 0xC0DE12L;
    private static final String IMEI = "352093081452251";

    /** The Teltonika wiki's Codec 12 reply to "getinfo". */
    static final String CODEC12_GETINFO_RESPONSE = """
            00000000 00000090   # preamble, data size 144
            0C                  # codec 12
            01                  # response quantity 1
            06                  # type: response
            00000088            # response size 136
            494E493A323031392F372F323220373A3232205254433A323031392F372F323220373A3533205253543A32204552523A31
            2053523A302042523A302043463A302046473A3020464C3A302054553A302F302055543A3020534D533A30204E4F4750
            533A303A3330204750533A31205341543A302052533A332052463A36352053463A31204D443A30
            01                  # response quantity 2
            0000C78F            # CRC
            """;
    static final String GETINFO_TEXT = "INI:2019/7/22 7:22 RTC:2019/7/22 7:53 RST:2 ERR:1 SR:0 BR:0 CF:0 FG:0 FL:0"
            + " TU:0/0 UT:0 SMS:0 NOGPS:0:30 GPS:1 SAT:0 RS:3 RF:65 SF:1 MD:0";

    /** Hand-built Codec 14 ACK: the device is the IMEI addressed. */
    static final String CODEC14_ACK = """
            00000000 0000003E   # preamble, data size 62
            0E 01 06            # codec 14, quantity 1, type: response (ACK)
            00000036            # size 54 = 8 (IMEI) + 46 (text)
            0352093081452251    # IMEI 352093081452251 as 16 hex digits with a leading 0
            5665723A30332E32352E31345F3034204750533A41584E5F352E312E392048773A464D42393230204D6F643A3638
                                # "Ver:03.25.14_04 GPS:AXN_5.1.9 Hw:FMB920 Mod:68"
            01                  # quantity 2
            00009839            # CRC
            """;

    /** Hand-built Codec 14 nACK: the IMEI in the command was not the device's own. */
    static final String CODEC14_NACK = """
            00000000 00000010   # preamble, data size 16
            0E 01 11            # codec 14, quantity 1, type: nACK
            00000008            # size 8: the IMEI only
            0352093081452251    # IMEI
            01                  # quantity 2
            000032AC            # CRC
            """;

    /** Hand-built Codec 13 device message. */
    static final String CODEC13_MESSAGE = """
            00000000 0000001D   # preamble, data size 29
            0D 01 05            # codec 13, quantity 1, type 0x05
            00000015            # size 21 = 4 (timestamp) + 17 (text)
            5D35B1C0            # timestamp 1563800000 s (2019-07-22T12:53:20Z)
            48656C6C6F2066726F6D20646576696365  # "Hello from device"
            01                  # quantity 2
            0000E774            # CRC
            """;

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private final CommandFrameDecoder decoder = new CommandFrameDecoder(DecodeLimits.DEFAULTS);

    @Test
    void decode_whenCodec12Response_thenType06WithText() {
        CommandFrame reply = readAndDecode(CODEC12_GETINFO_RESPONSE);

        assertThat(reply.codec()).isEqualTo(CodecId.CODEC_12);
        assertThat(reply.type()).isEqualTo(CommandFrame.TYPE_RESPONSE);
        assertThat(reply.text()).isEqualTo(GETINFO_TEXT);
        assertThat(reply.payloadLength()).isEqualTo(136);
        assertThat(reply.imei()).isNull();
        assertThat(reply.timestampSeconds()).isEqualTo(-1);
        assertThat(reply.isNack()).isFalse();
        assertThat(reply).isEqualTo(CommandFrame.codec12Response(GETINFO_TEXT));
    }

    @Test
    void decode_whenCodec14Ack_thenImeiAndText() {
        CommandFrame ack = readAndDecode(CODEC14_ACK);

        assertThat(ack.codec()).isEqualTo(CodecId.CODEC_14);
        assertThat(ack.type()).isEqualTo(CommandFrame.TYPE_RESPONSE);
        assertThat(ack.imei()).isEqualTo(IMEI);
        assertThat(ack.text()).isEqualTo("Ver:03.25.14_04 GPS:AXN_5.1.9 Hw:FMB920 Mod:68");
        assertThat(ack.isNack()).isFalse();
        assertThat(ack).isEqualTo(CommandFrame.codec14Response(IMEI, "Ver:03.25.14_04 GPS:AXN_5.1.9 Hw:FMB920 Mod:68"));
    }

    @Test
    void decode_whenCodec14Nack_thenImeiOnly() {
        CommandFrame nack = readAndDecode(CODEC14_NACK);

        assertThat(nack.type()).isEqualTo(CommandFrame.TYPE_NACK);
        assertThat(nack.isNack()).isTrue();
        assertThat(nack.imei()).isEqualTo(IMEI);
        assertThat(nack.payloadLength()).isZero();
        assertThat(nack).isEqualTo(CommandFrame.codec14Nack(IMEI));
    }

    @Test
    void decode_whenCodec13Message_thenTimestampAndText() {
        CommandFrame message = readAndDecode(CODEC13_MESSAGE);

        assertThat(message.codec()).isEqualTo(CodecId.CODEC_13);
        assertThat(message.type()).isEqualTo(0x05);
        assertThat(message.timestampSeconds()).isEqualTo(1_563_800_000L);
        assertThat(message.text()).isEqualTo("Hello from device");
        assertThat(message.imei()).isNull();
    }

    @Test
    void encode_whenRepliesAndDeviceMessage_thenByteForByte() {
        assertThat(encode(CommandFrame.codec12Response(GETINFO_TEXT))).isEqualTo(hex(CODEC12_GETINFO_RESPONSE));
        assertThat(encode(CommandFrame.codec14Response(IMEI, "Ver:03.25.14_04 GPS:AXN_5.1.9 Hw:FMB920 Mod:68")))
                .isEqualTo(hex(CODEC14_ACK));
        assertThat(encode(CommandFrame.codec14Nack(IMEI))).isEqualTo(hex(CODEC14_NACK));
        assertThat(encode(new CommandFrame(CodecId.CODEC_13, 0x05, null, 1_563_800_000L,
                "Hello from device".getBytes(StandardCharsets.US_ASCII)))).isEqualTo(hex(CODEC13_MESSAGE));
    }

    @Test
    void roundTrip_whenEveryKindWithRandomText_thenEqual() {
        Random random = new Random(SEED);
        for (int i = 0; i < 300; i++) {
            String text = randomAscii(random, random.nextInt(0, 400));
            String imei = String.format("%015d", random.nextLong(1_000_000_000_000_000L));
            long timestamp = random.nextLong(0x1_0000_0000L);
            List<CommandFrame> frames = List.of(
                    CommandFrame.codec12Command(text),
                    CommandFrame.codec12Response(text),
                    CommandFrame.codec14Command(imei, text),
                    CommandFrame.codec14Response(imei, text),
                    CommandFrame.codec14Nack(imei),
                    new CommandFrame(CodecId.CODEC_13, CommandFrame.TYPE_COMMAND, null, timestamp,
                            text.getBytes(StandardCharsets.US_ASCII)));
            for (CommandFrame frame : frames) {
                assertThat(readAndDecode(encode(frame))).as("seed %d iteration %d", SEED, i).isEqualTo(frame);
            }
        }
    }

    @Test
    void roundTrip_whenBinaryPayloadWithEveryByteValue_thenExactBytes() {
        byte[] payload = new byte[256];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        CommandFrame frame = new CommandFrame(CodecId.CODEC_12, CommandFrame.TYPE_RESPONSE, null, -1, payload);

        CommandFrame decoded = readAndDecode(encode(frame));

        assertThat(decoded.payload()).isEqualTo(payload);
        assertThat(decoded.text()).as("non-ASCII bytes become U+FFFD").contains("\uFFFD").startsWith("\u0000\u0001");
    }

    @Test
    void roundTrip_whenImeiHasLeadingZeros_thenKept() {
        CommandFrame frame = CommandFrame.codec14Command("000000000000042", "getver");

        assertThat(readAndDecode(encode(frame)).imei()).isEqualTo("000000000000042");
    }

    @Test
    void decode_whenSizeFieldLargerThanBody_thenTruncated() {
        withBody(body(CODEC12_GETINFO_RESPONSE).replaceFirst("00000088", "00000089"),
                in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
        withBody(body(CODEC14_NACK).replaceFirst("00000008", "FFFFFFFF"),
                in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
    }

    @Test
    void decode_whenSizeFieldSmallerThanBody_thenTrailingBytes() {
        withBody(body(CODEC12_GETINFO_RESPONSE).replaceFirst("00000088", "00000087"),
                in -> assertRejected(Reason.TRAILING_BYTES, in, decoder::decode));
        withBody(body(CODEC13_MESSAGE).replaceFirst("00000015", "00000000"),
                in -> assertRejected(Reason.TRAILING_BYTES, in, decoder::decode));
    }

    @Test
    void decode_whenQuantitiesAreNotOne_thenBadCommandFrame() {
        String body = body(CODEC14_ACK);
        String q1 = "0E" + "02" + body.substring(4);
        String q2 = body.substring(0, body.length() - 2) + "02";
        String both = "0E" + "00" + body.substring(4, body.length() - 2) + "00";
        for (String hex : List.of(q1, q2, both)) {
            withBody(hex, in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode));
        }
    }

    @Test
    void decode_whenCodec14ImeiFieldNotDecimal_thenBadCommandFrame() {
        for (String wireImei : List.of("0A52093081452251", "035209308145225F", "FFFFFFFFFFFFFFFF")) {
            withBody(body(CODEC14_NACK).replace("0352093081452251", wireImei),
                    in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode, wireImei));
        }
    }

    @Test
    void decode_whenCodec14ImeiFieldHasSixteenDigits_thenBadCommandFrame() {
        withBody(body(CODEC14_NACK).replace("0352093081452251", "1352093081452251"),
                in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode));
    }

    @Test
    void decode_whenCodec14WithoutRoomForImei_thenBadCommandFrame() {
        withBody("0E 01 06 00000004 31323334 01", in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode));
    }

    @Test
    void decode_whenCodec13WithoutRoomForTimestamp_thenBadCommandFrame() {
        withBody("0D 01 05 00000002 3132 01", in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode));
    }

    @Test
    void decode_whenAvlCodecOrUnknownCodec_thenUnknownCodec() {
        for (String codec : List.of("08", "8E", "10", "0B", "FF")) {
            withBody(codec + " 01 06 00000000 01", in -> assertRejected(Reason.UNKNOWN_CODEC, in, decoder::decode));
        }
    }

    @Test
    void decode_whenShorterThanOverhead_thenTruncated() {
        for (String hex : List.of("", "0C", "0C 01 06 000000 01")) {
            withBody(hex, in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
        }
    }

    @Test
    void decode_whenEmptyCodec12Response_thenEmptyText() {
        withBody("0C 01 06 00000000 01", in -> assertThat(decoder.decode(in)).isEqualTo(CommandFrame.codec12Response("")));
    }

    @Test
    void frames_whenAvlPacketArrivesBetweenCommandAndReply_thenEachFrameKeepsItsCodec() {
        // Replies carry no id; the server tells them from interleaved AVL packets by codec alone.
        byte[] avl = GoldenVectors.ofKind("avl").get(0).bytes();
        byte[] wire = concat(avl, Hex.bytes(CODEC12_GETINFO_RESPONSE), avl);
        try (TcpStream stream = new TcpStream(reader)) {
            List<Frame> frames = stream.feedBytewise(wire);

            assertThat(frames).extracting(f -> ((DataFrame) f).codec())
                    .containsExactly(CodecId.CODEC_8, CodecId.CODEC_12, CodecId.CODEC_8);
            assertThat(decoder.decode(((DataFrame) frames.get(1)).body()).text()).isEqualTo(GETINFO_TEXT);
            assertThat(new AvlPacketDecoder(DecodeLimits.DEFAULTS).decode(((DataFrame) frames.get(2)).body()).size())
                    .isEqualTo(1);
        }
    }

    @Test
    void commandFrame_whenPayloadArraysChangedOutside_thenFrameUnchanged() {
        byte[] payload = {'a', 'b'};
        CommandFrame frame = new CommandFrame(CodecId.CODEC_12, CommandFrame.TYPE_COMMAND, null, -1, payload);
        payload[0] = 'x';
        frame.payload()[1] = 'y';

        assertThat(frame.text()).isEqualTo("ab");
    }

    @Test
    void commandFrame_whenImeiOrTimestampOnTheWrongCodec_thenIllegalArgument() {
        byte[] none = new byte[0];
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_12, 5, IMEI, -1, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_14, 5, null, -1, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_12, 5, null, 0, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_13, 5, null, -1, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_8, 5, null, -1, none))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private CommandFrame readAndDecode(String frameHex) {
        return readAndDecode(Hex.bytes(frameHex));
    }

    private CommandFrame readAndDecode(byte[] frame) {
        try (TcpStream stream = TcpStream.untracked(reader)) {
            List<Frame> frames = stream.feed(frame);
            assertThat(frames).hasSize(1);
            DataFrame data = (DataFrame) frames.get(0);
            ByteBuf body = data.body();
            int readerIndex = body.readerIndex();
            CommandFrame decoded = decoder.decode(body);
            assertThat(body.readerIndex()).isEqualTo(readerIndex);
            assertThat(decoded.codec()).isEqualTo(data.codec());
            return decoded;
        }
    }

    private static byte[] encode(CommandFrame frame) {
        ByteBuf out = Unpooled.buffer();
        try {
            CommandFrameEncoder.writeTcpFrame(out, frame);
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            out.release();
        }
    }

    private static byte[] hex(String annotated) {
        return Hex.bytes(annotated);
    }

    /** Codec id through quantity 2 of an annotated frame, as plain upper-case hex. */
    private static String body(String frameHex) {
        byte[] frame = Hex.bytes(frameHex);
        return Hex.of(Arrays.copyOfRange(frame, 8, frame.length - 4));
    }

    private static void withBody(String hex, Consumer<ByteBuf> test) {
        byte[] bytes = Hex.bytes(hex);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer(Math.max(1, bytes.length)).writeBytes(bytes);
        try {
            test.accept(in);
        } finally {
            in.release();
        }
    }

    private static String randomAscii(Random random, int length) {
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append((char) random.nextInt(0x20, 0x7F));
        }
        return out.toString();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
