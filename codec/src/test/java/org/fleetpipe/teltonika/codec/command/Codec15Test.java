package org.fleetpipe.teltonika.codec.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fleetpipe.teltonika.codec.testing.Rejections.assertRejected;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.junit.jupiter.api.Test;

/**
 * Codec 15 (FMX6 RS232 modes), which the shared PROTOCOL.md does not cover: decoded and encoded as
 * Teltonika's public wiki ("Teltonika Data Sending Protocols", Codec 15) documents it, checked
 * against the wiki's own example frame byte for byte.
 */
class Codec15Test {

    private static final long SEED = 0xC0DE15L;
    private static final String IMEI = "352093081452251";

    /** The wiki's example: the device sends "Hello!\n" (its CRC checked outside this codebase). */
    static final String WIKI_HELLO = """
            00000000 0000001B   # preamble, data size 27
            0F                  # codec 15
            01                  # quantity 1
            0B                  # type 0x0B
            00000013            # size 19 = 4 (timestamp) + 8 (IMEI) + 7 (text)
            654B65A4            # timestamp 1699440036 s (2023-11-08T10:40:36Z)
            0123456789123456    # IMEI 123456789123456 as 16 hex digits with a leading 0
            48656C6C6F210A      # "Hello!\\n"
            01                  # quantity 2
            000093D6            # CRC
            """;

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private final CommandFrameDecoder decoder = new CommandFrameDecoder(DecodeLimits.DEFAULTS);

    @Test
    void decode_whenTheWikiExample_thenTimestampImeiAndText() {
        CommandFrame message = readAndDecode(Hex.bytes(WIKI_HELLO));

        assertThat(message.codec()).isEqualTo(CodecId.CODEC_15);
        assertThat(message.type()).isEqualTo(CommandFrame.TYPE_CODEC15_MESSAGE);
        assertThat(message.timestampSeconds()).isEqualTo(1_699_440_036L);
        assertThat(message.imei()).isEqualTo("123456789123456");
        assertThat(message.text()).isEqualTo("Hello!\n");
        assertThat(message).isEqualTo(CommandFrame.codec15Message("123456789123456", 1_699_440_036L, "Hello!\n"));
    }

    @Test
    void encode_whenTheWikiMessage_thenTheWikiBytes() {
        assertThat(encode(CommandFrame.codec15Message("123456789123456", 1_699_440_036L, "Hello!\n")))
                .isEqualTo(Hex.bytes(WIKI_HELLO));
    }

    @Test
    void roundTrip_whenRandomImeiTimestampAndText_thenEqual() {
        Random random = new Random(SEED);
        for (int i = 0; i < 300; i++) {
            String imei = String.format("%015d", random.nextLong(1_000_000_000_000_000L));
            long timestamp = random.nextLong(0x1_0000_0000L);
            byte[] text = new byte[random.nextInt(0, 400)];
            random.nextBytes(text);
            CommandFrame frame = new CommandFrame(CodecId.CODEC_15, random.nextInt(256), imei, timestamp, text);

            assertThat(readAndDecode(encode(frame))).as("seed %d iteration %d", SEED, i).isEqualTo(frame);
        }
    }

    @Test
    void roundTrip_whenExtremeTimestampsAndImeis_thenKept() {
        for (long timestamp : new long[] {0, 1, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL}) {
            for (String imei : List.of("000000000000000", "000000000000042", "999999999999999", IMEI)) {
                CommandFrame frame = CommandFrame.codec15Message(imei, timestamp, "");
                assertThat(readAndDecode(encode(frame))).isEqualTo(frame);
            }
        }
    }

    @Test
    void frame_whenCrcDamaged_thenBadCrc() {
        byte[] wire = Hex.bytes(WIKI_HELLO);
        wire[wire.length - 1] ^= 1;
        withBody(Hex.of(wire), in -> assertRejected(Reason.BAD_CRC, in, reader::tryRead));
    }

    @Test
    void decode_whenNoRoomForTimestampAndImei_thenBadCommandFrame() {
        // Eleven bytes: the timestamp and seven of the IMEI's eight.
        withBody("0F 01 0B 0000000B 654B65A4 01234567891234 01",
                in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode));
        withBody("0F 01 0B 00000000 01", in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode));
    }

    @Test
    void decode_whenImeiFieldNotAnImei_thenBadCommandFrame() {
        for (String wireImei : List.of("0A23456789123456", "012345678912345F", "1123456789123456",
                "FFFFFFFFFFFFFFFF")) {
            withBody(body(WIKI_HELLO).replace("0123456789123456", wireImei),
                    in -> assertRejected(Reason.BAD_COMMAND_FRAME, in, decoder::decode, wireImei));
        }
    }

    @Test
    void decode_whenSizeFieldWrong_thenTruncatedOrTrailing() {
        withBody(body(WIKI_HELLO).replaceFirst("00000013", "FFFFFFFF"),
                in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
        withBody(body(WIKI_HELLO).replaceFirst("00000013", "00000012"),
                in -> assertRejected(Reason.TRAILING_BYTES, in, decoder::decode));
    }

    @Test
    void decode_whenTextOverTheLimit_thenLimitExceededBeforeAnyCopy() {
        CommandFrameDecoder small = new CommandFrameDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(45));
        byte[] frame = encode(CommandFrame.codec15Message(IMEI, 1, "x".repeat(40)));
        withBody(Hex.of(Arrays.copyOfRange(frame, 8, frame.length - 4)),
                in -> assertRejected(Reason.LIMIT_EXCEEDED, in, small::decode));
    }

    @Test
    void commandFrame_whenCodec15WithoutImeiOrTimestamp_thenIllegalArgument() {
        byte[] none = new byte[0];
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_15, 0x0B, null, 1, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CommandFrame(CodecId.CODEC_15, 0x0B, IMEI, -1, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CommandFrame.codec15Message(IMEI, 0x1_0000_0000L, ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CommandFrame.codec15Message("12345", 1, ""))
                .isInstanceOf(RuntimeException.class);
    }

    private CommandFrame readAndDecode(byte[] frame) {
        try (TcpStream stream = TcpStream.untracked(reader)) {
            List<Frame> frames = stream.feed(frame);
            assertThat(frames).hasSize(1);
            DataFrame data = (DataFrame) frames.get(0);
            assertThat(data.codec()).isEqualTo(CodecId.CODEC_15);
            ByteBuf body = data.body();
            int readerIndex = body.readerIndex();
            CommandFrame decoded = decoder.decode(body);
            assertThat(body.readerIndex()).isEqualTo(readerIndex);
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
}
