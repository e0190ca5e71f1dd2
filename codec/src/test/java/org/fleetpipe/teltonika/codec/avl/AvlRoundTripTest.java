package org.fleetpipe.teltonika.codec.avl;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * encode then decode is the identity, for thousands of random packets per codec. Each packet has
 * its own seed, printed on failure: {@code new RandomAvl(seed).packet(codec)} rebuilds it.
 */
class AvlRoundTripTest {

    private static final long SEED = 0x5EED_A71CL;
    private static final int PACKETS_PER_CODEC = 2000;

    /** Random 8E packets reach ~70 KB (50 records of NX values up to 300 bytes): beyond the 16 KiB default. */
    private static final DecodeLimits LIMITS = DecodeLimits.DEFAULTS.withMaxFrameBytes(1024 * 1024);

    private final AvlPacketDecoder decoder = new AvlPacketDecoder(LIMITS);
    private final TcpFrameReader reader = new TcpFrameReader(LIMITS);

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void body_whenEncodedAndDecoded_thenSamePacketAndSameBytes(CodecId codec) {
        for (int i = 0; i < PACKETS_PER_CODEC; i++) {
            long seed = seedFor(codec, i);
            AvlPacket packet = new RandomAvl(seed).packet(codec);
            byte[] body = RandomAvl.body(packet);

            AvlPacket decoded = decode(body);

            assertThat(decoded).as(replay(codec, seed)).isEqualTo(packet);
            assertThat(RandomAvl.body(decoded)).as(replay(codec, seed)).isEqualTo(body);
        }
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void tcpFrame_whenEncodedAndReadAtRandomSplits_thenSamePackets(CodecId codec) {
        for (int i = 0; i < PACKETS_PER_CODEC; i++) {
            long seed = seedFor(codec, i) ^ 0x7C9L;
            RandomAvl random = new RandomAvl(seed);
            // Two packets back to back, so a split also lands between and across frames.
            AvlPacket first = random.packet(codec);
            AvlPacket second = random.packet(codec);
            byte[] wire = concat(RandomAvl.tcpFrame(first), RandomAvl.tcpFrame(second));
            Random splits = random.random();
            int[] cuts = splits.ints(splits.nextInt(1, 6), 0, wire.length + 1).toArray();

            try (TcpStream stream = TcpStream.untracked(reader)) {
                List<Frame> frames = stream.feedSplit(wire, cuts);

                String context = replay(codec, seed) + " cuts " + Arrays.toString(cuts);
                assertThat(frames).as(context).hasSize(2);
                assertThat(stream.buffered()).as(context).isZero();
                DataFrame a = (DataFrame) frames.get(0);
                DataFrame b = (DataFrame) frames.get(1);
                assertThat(a.codec()).as(context).isEqualTo(codec);
                assertThat(decoder.decode(a.body())).as(context).isEqualTo(first);
                assertThat(decoder.decode(b.body())).as(context).isEqualTo(second);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void tcpFrame_whenRealisticPacketsAtDefaultLimits_thenSamePackets(CodecId codec) {
        // What other modules feed through the server: plausible values, frames within the 16 KiB default.
        TcpFrameReader defaults = new TcpFrameReader(DecodeLimits.DEFAULTS);
        AvlPacketDecoder defaultDecoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
        for (int i = 0; i < 300; i++) {
            long seed = seedFor(codec, i) ^ 0x4EA1L;
            AvlPacket packet = new RandomAvl(seed).realistic().maxRecords(10).packet(codec);
            try (TcpStream stream = TcpStream.untracked(defaults)) {
                List<Frame> frames = stream.feed(RandomAvl.tcpFrame(packet));

                assertThat(defaultDecoder.decode(((DataFrame) frames.get(0)).body()))
                        .as(replay(codec, seed) + ".realistic().maxRecords(10)").isEqualTo(packet);
            }
        }
    }

    private AvlPacket decode(byte[] body) {
        ByteBuf in = Unpooled.wrappedBuffer(body);
        try {
            return decoder.decode(in);
        } finally {
            in.release();
        }
    }

    private static long seedFor(CodecId codec, int i) {
        return SEED + codec.wire() * 1_000_000L + i;
    }

    private static String replay(CodecId codec, long seed) {
        return "replay: new RandomAvl(" + seed + "L).packet(CodecId." + codec.name() + ")";
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
