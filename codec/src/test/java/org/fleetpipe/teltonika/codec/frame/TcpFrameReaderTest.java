package org.fleetpipe.teltonika.codec.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors.Vector;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Framing of a byte stream split and coalesced anywhere; rejections are in TcpFrameReaderRejectionTest. */
class TcpFrameReaderTest {

    private static final long SEED = 0x7CF4A3E1L;
    private static final String IMEI = "352093081452251";
    private static final byte[] PING = {(byte) 0xFF};

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);

    static List<Vector> vectors() {
        return GoldenVectors.all();
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenVectorWhole_thenOneDataFrameHoldingTheWholeFrame(Vector v) {
        try (TcpStream stream = new TcpStream(reader)) {
            List<Frame> frames = stream.feed(v.bytes());

            assertThat(frames).hasSize(1).first().isInstanceOf(DataFrame.class);
            DataFrame frame = (DataFrame) frames.get(0);
            assertThat(frame.codec().label()).isEqualTo(v.codec());
            assertThat(Hex.of(frame.content())).as("whole frame, for dead letters").isEqualToIgnoringCase(v.hex());
            assertThat(Hex.of(frame.body())).isEqualToIgnoringCase(v.hex().substring(16, v.hex().length() - 8));
            assertThat(frame.bodyLength()).isEqualTo(v.bytes().length - 12);
            assertThat(stream.buffered()).isZero();
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenVectorFedOneByteAtATime_thenExactlyOneFrameEqualToWholeDecode(Vector v) {
        try (TcpStream stream = new TcpStream(reader)) {
            byte[] bytes = v.bytes();
            List<Frame> seen = new ArrayList<>();
            for (int i = 0; i < bytes.length; i++) {
                List<Frame> cut = stream.feed(bytes, i, 1);
                assertThat(cut).as("frames after byte %d of %d", i + 1, bytes.length)
                        .hasSize(i == bytes.length - 1 ? 1 : 0);
                seen.addAll(cut);
            }

            assertSameAsWholeDecode(v, seen);
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenVectorSplitInTwoAtEveryOffset_thenSameFrame(Vector v) {
        byte[] bytes = v.bytes();
        for (int cut = 0; cut <= bytes.length; cut++) {
            try (TcpStream stream = new TcpStream(reader)) {
                List<Frame> first = stream.feed(bytes, 0, cut);
                assertThat(first).as("frames from the first %d bytes", cut).hasSize(cut == bytes.length ? 1 : 0);
                assertThat(stream.buffered()).isEqualTo(cut == bytes.length ? 0 : cut);
                stream.feed(bytes, cut, bytes.length - cut);

                assertSameAsWholeDecode(v, stream.frames());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void tryRead_whenAnyProperPrefix_thenNullAndNothingConsumed(Vector v) {
        // The reader is stateless: an incomplete frame must be left exactly where it was.
        byte[] bytes = v.bytes();
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer(bytes.length);
        try {
            for (int length = 0; length < bytes.length; length++) {
                in.clear().writeBytes(bytes, 0, length);

                assertThat(reader.tryRead(in)).as("prefix of %d bytes", length).isNull();
                assertThat(in.readerIndex()).as("prefix of %d bytes", length).isZero();
            }
        } finally {
            in.release();
        }
    }

    @Test
    void tryRead_whenTwoFramesInOneBuffer_thenBothInOrder() {
        List<Vector> avl = GoldenVectors.ofKind("avl");
        byte[] both = concat(avl.get(0).bytes(), avl.get(3).bytes());

        try (TcpStream stream = new TcpStream(reader)) {
            List<Frame> frames = stream.feed(both);

            assertThat(TcpStream.describe(frames)).containsExactly(data(avl.get(0)), data(avl.get(3)));
        }
    }

    @Test
    void tryRead_whenThreeFramesMixedWithPingsAndLogin_thenAllFramesInOrder() {
        List<Vector> v = GoldenVectors.all();
        byte[] stream = concat(login(IMEI), PING, v.get(0).bytes(), PING, PING, v.get(4).bytes(), v.get(5).bytes(),
                PING);
        List<String> expected = List.of("login:" + IMEI, "ping", data(v.get(0)), "ping", "ping", data(v.get(4)),
                data(v.get(5)), "ping");

        try (TcpStream whole = new TcpStream(reader); TcpStream bytewise = new TcpStream(reader)) {
            assertThat(TcpStream.describe(whole.feed(stream))).containsExactlyElementsOf(expected);
            assertThat(TcpStream.describe(bytewise.feedBytewise(stream))).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void tryRead_whenLoginAndFirstPacketArriveTogether_thenLoginThenPacket() {
        Vector first = GoldenVectors.ofKind("avl").get(0);

        try (TcpStream stream = new TcpStream(reader)) {
            List<Frame> frames = stream.feed(concat(login(IMEI), first.bytes()));

            assertThat(frames).hasSize(2);
            assertThat(frames.get(0)).isEqualTo(new LoginFrame(IMEI));
            assertThat(TcpStream.describe(frames.get(1))).isEqualTo(data(first));
        }
    }

    @Test
    void tryRead_whenLoginSplitInsideItsLength_thenLoginOnceComplete() {
        byte[] login = login(IMEI);
        try (TcpStream stream = new TcpStream(reader)) {
            assertThat(stream.feed(login, 0, 1)).isEmpty();
            assertThat(stream.feed(login, 1, 5)).isEmpty();
            assertThat(stream.feed(login, 6, login.length - 6)).containsExactly(new LoginFrame(IMEI));
        }
    }

    @Test
    void tryRead_whenLoginOfMaximumLength_thenFramedWithoutJudgingText() {
        String text = "X".repeat(DecodeLimits.DEFAULTS.maxLoginBytes());
        try (TcpStream stream = new TcpStream(reader)) {
            assertThat(stream.feed(login(text))).containsExactly(new LoginFrame(text));
        }
    }

    @Test
    void tryRead_whenSinglePing_thenPingConsumingOneByte() {
        try (TcpStream stream = new TcpStream(reader)) {
            assertThat(stream.feed(concat(PING, new byte[] {0, 0}))).containsExactly(PingFrame.INSTANCE);
            assertThat(stream.buffered()).as("the zeros may start a preamble").isEqualTo(2);
        }
    }

    @Test
    void tryRead_whenEmpty_thenNull() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer();
        try {
            assertThat(reader.tryRead(in)).isNull();
        } finally {
            in.release();
        }
    }

    @Test
    void tryRead_whenInputReleasedAfterwards_thenFrameStillHoldsItsBytes() {
        // The frame must own a retained view: the server releases the read buffer long before the frame.
        Vector v = GoldenVectors.ofKind("avl").get(2);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer().writeBytes(v.bytes());
        DataFrame frame = (DataFrame) reader.tryRead(in);
        in.release();
        try {
            assertThat(in.refCnt()).as("still held by the frame").isPositive();
            assertThat(Hex.of(frame.content())).isEqualToIgnoringCase(v.hex());
        } finally {
            frame.release();
        }
        assertThat(in.refCnt()).isZero();
    }

    @Test
    void tryRead_whenFrameStartsMidBuffer_thenFramesFromReaderIndex() {
        Vector v = GoldenVectors.ofKind("avl").get(1);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer();
        in.writeBytes(new byte[] {0x12, 0x34, 0x56}).writeBytes(v.bytes()).readerIndex(3);
        try {
            DataFrame frame = (DataFrame) reader.tryRead(in);
            try {
                assertThat(Hex.of(frame.content())).isEqualToIgnoringCase(v.hex());
                assertThat(in.isReadable()).isFalse();
            } finally {
                frame.release();
            }
        } finally {
            in.release();
        }
    }

    @Test
    void tryRead_whenEveryVectorWithPingsAndLoginAtRandomSplits_thenAllFramesInOrder() {
        List<Vector> vectors = GoldenVectors.all();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<String> expected = new ArrayList<>();
        wire.writeBytes(login(IMEI));
        expected.add("login:" + IMEI);
        for (Vector v : vectors) {
            wire.writeBytes(v.bytes());
            expected.add(data(v));
            wire.writeBytes(PING);
            expected.add("ping");
        }
        byte[] bytes = wire.toByteArray();
        Random random = new Random(SEED);
        for (int round = 0; round < 200; round++) {
            int[] cuts = random.ints(random.nextInt(1, 30), 0, bytes.length + 1).toArray();
            try (TcpStream stream = new TcpStream(reader)) {
                stream.feedSplit(bytes, cuts);

                assertThat(TcpStream.describe(stream.frames()))
                        .as("seed %d round %d cuts %s", SEED, round, Arrays.toString(cuts))
                        .containsExactlyElementsOf(expected);
                assertThat(stream.buffered()).isZero();
            }
        }
    }

    /** Same bytes as one whole read, and the same decoded packet or command. */
    private void assertSameAsWholeDecode(Vector v, List<Frame> frames) {
        try (TcpStream whole = new TcpStream(reader)) {
            List<Frame> expected = whole.feed(v.bytes());
            assertThat(TcpStream.describe(frames)).isEqualTo(TcpStream.describe(expected));
            DataFrame got = (DataFrame) frames.get(0);
            DataFrame want = (DataFrame) expected.get(0);
            if (got.codec().isAvl()) {
                AvlPacketDecoder avl = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
                AvlPacket packet = avl.decode(got.body());
                assertThat(packet).isEqualTo(avl.decode(want.body()));
                assertThat(packet.size()).isEqualTo(v.json().get("records").asInt());
            } else {
                CommandFrameDecoder commands = new CommandFrameDecoder(DecodeLimits.DEFAULTS);
                CommandFrame command = commands.decode(got.body());
                assertThat(command).isEqualTo(commands.decode(want.body()));
                assertThat(command.text()).isEqualTo(v.json().get("command").asText());
            }
        }
    }

    private static String data(Vector v) {
        return "data:" + v.codec() + ":" + v.hex().toUpperCase();
    }

    static byte[] login(String text) {
        ByteBuf out = Acks.writeLoginRequest(Unpooled.buffer(), text);
        try {
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            out.release();
        }
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
