package org.fleetpipe.teltonika.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.codec.udp.UdpPacketEncoder;
import org.junit.jupiter.api.Test;

/**
 * Damaged input from a device must end in a frame, a decoded message, or a CodecException: never
 * another exception, and never a buffer left referenced (TcpStream.close checks reference counts
 * on every iteration; the leak detector watches the tracked ones). Each iteration is a function of
 * its own seed alone, and a failure prints that seed and the damaged input in hex.
 */
class MutationRobustnessTest {

    private static final long SEED = 0xF022_0001L;
    private static final int ITERATIONS = 2500;

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private final AvlPacketDecoder avl = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
    private final CommandFrameDecoder commands = new CommandFrameDecoder(DecodeLimits.DEFAULTS);
    private final UdpPacketDecoder udp = new UdpPacketDecoder(DecodeLimits.DEFAULTS);

    @Test
    void tcpStream_whenWholeFramesMutated_thenOnlyFramesOrCodecExceptions() {
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int i = 0; i < ITERATIONS; i++) {
            long seed = SEED + i;
            Random random = new Random(seed);
            byte[] wire = mutate(random, seedFrame(random, seed));
            boolean tracked = wire.length <= 200;
            runGuarded(seed, wire, () -> outcomes.merge(feedAndDecode(random, wire, tracked), 1, Integer::sum));
        }
        // Most damage is caught by the CRC; the rest must still be turned away cleanly.
        assertThat(outcomes).as("outcomes %s", outcomes).containsKey("reject:" + Reason.BAD_CRC.label());
    }

    @Test
    void tcpStream_whenBodiesMutatedAndReframedWithValidCrc_thenDecodersOnlyThrowCodecExceptions() {
        // With the CRC recomputed, every mutation reaches the AVL and command decoders.
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int i = 0; i < ITERATIONS; i++) {
            long seed = (SEED ^ 0xB0D1_0000L) + i;
            Random random = new Random(seed);
            byte[] frame = seedFrame(random, seed);
            byte[] body = mutate(random, Arrays.copyOfRange(frame, 8, frame.length - 4));
            byte[] wire = reframe(body);
            boolean tracked = wire.length <= 200;
            runGuarded(seed, wire, () -> outcomes.merge(feedAndDecode(random, wire, tracked), 1, Integer::sum));
        }
        Map<Reason, Integer> reasons = new EnumMap<>(Reason.class);
        outcomes.forEach((k, v) -> {
            if (k.startsWith("decode-reject:")) {
                reasons.put(reasonOf(k.substring("decode-reject:".length())), v);
            }
        });
        // Guards against a degenerate fuzzer: decoders both accept and refuse, for several reasons.
        assertThat(outcomes.getOrDefault("decoded", 0)).as("outcomes %s", outcomes).isGreaterThan(ITERATIONS / 20);
        assertThat(reasons).as("outcomes %s", outcomes).hasSizeGreaterThanOrEqualTo(4);
    }

    @Test
    void udpDecoder_whenDatagramsMutated_thenOnlyPacketsOrCodecExceptionsAndHeaderAlwaysPeekable() {
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int i = 0; i < ITERATIONS; i++) {
            long seed = (SEED ^ 0x0D90_0000L) + i;
            Random random = new Random(seed);
            RandomAvl gen = new RandomAvl(seed).maxRecords(3).maxPerGroup(3).maxVariable(2, 40);
            ByteBuf out = Unpooled.buffer();
            byte[] datagram;
            try {
                UdpPacketEncoder.writeDatagram(out, new UdpPacket(random.nextInt(0x10000), random.nextInt(0x100),
                        "352093081452251", gen.packet()));
                byte[] mutated = mutate(random, toBytes(out));
                if (mutated.length >= 2 && random.nextBoolean()) {
                    // A consistent length field gets the damage past the first check, into IMEI and body.
                    mutated[0] = (byte) ((mutated.length - 2) >>> 8);
                    mutated[1] = (byte) (mutated.length - 2);
                }
                datagram = mutated;
            } finally {
                out.release();
            }
            runGuarded(seed, datagram, () -> {
                ByteBuf in = Unpooled.wrappedBuffer(datagram);
                try {
                    String outcome;
                    try {
                        udp.decode(in);
                        outcome = "decoded";
                    } catch (CodecException e) {
                        outcome = "reject:" + e.reason().label();
                    }
                    UdpPacketDecoder.peekHeader(in);
                    assertThat(in.readerIndex()).isZero();
                    outcomes.merge(outcome, 1, Integer::sum);
                } finally {
                    in.release();
                }
            });
        }
        assertThat(outcomes.getOrDefault("decoded", 0)).as("outcomes %s", outcomes).isGreaterThan(ITERATIONS / 20);
    }

    /** Feeds at random split points and decodes every frame; returns a label for the outcome. */
    private String feedAndDecode(Random random, byte[] wire, boolean tracked) {
        int[] cuts = random.ints(random.nextInt(0, 4), 0, wire.length + 1).toArray();
        String outcome = "incomplete";
        try (TcpStream stream = tracked ? new TcpStream(reader, PooledByteBufAllocator.DEFAULT)
                : TcpStream.untracked(reader)) {
            try {
                stream.feedSplit(wire, cuts);
            } catch (CodecException e) {
                outcome = "reject:" + e.reason().label();
            }
            for (Frame frame : stream.frames()) {
                if (frame instanceof DataFrame data) {
                    ByteBuf body = data.body();
                    try {
                        if (data.codec().isAvl()) {
                            avl.decode(body);
                        } else {
                            commands.decode(body);
                        }
                        outcome = "decoded";
                    } catch (CodecException e) {
                        outcome = "decode-reject:" + e.reason().label();
                    }
                }
            }
        }
        return outcome;
    }

    /** A valid frame: a golden vector, a small random AVL packet, or a command frame. */
    private static byte[] seedFrame(Random random, long seed) {
        int pick = random.nextInt(10);
        if (pick < 3) {
            List<GoldenVectors.Vector> vectors = GoldenVectors.all();
            return vectors.get(random.nextInt(vectors.size())).bytes();
        }
        if (pick < 9) {
            return RandomAvl.tcpFrame(new RandomAvl(seed).maxRecords(4).maxPerGroup(3).maxVariable(2, 40).packet());
        }
        String text = "getinfo".substring(0, random.nextInt(8));
        CommandFrame command = switch (random.nextInt(5)) {
            case 0 -> CommandFrame.codec12Response(text);
            case 1 -> CommandFrame.codec14Response("352093081452251", text);
            case 2 -> CommandFrame.codec14Nack("352093081452251");
            case 3 -> CommandFrame.codec15Message("352093081452251", random.nextLong(0x1_0000_0000L), text);
            default -> new CommandFrame(CodecId.CODEC_13, 5, null,
                    random.nextLong(0x1_0000_0000L), new byte[random.nextInt(5)]);
        };
        ByteBuf out = Unpooled.buffer();
        try {
            return toBytes(CommandFrameEncoder.writeTcpFrame(out, command));
        } finally {
            out.release();
        }
    }

    /** One to four random edits: bit flips, byte values (boundary-heavy), inserts, deletes, cuts, copies. */
    static byte[] mutate(Random random, byte[] input) {
        byte[] out = input;
        int edits = random.nextInt(1, 5);
        for (int e = 0; e < edits; e++) {
            if (out.length == 0) {
                out = new byte[] {(byte) random.nextInt(256)};
                continue;
            }
            int at = random.nextInt(out.length);
            switch (random.nextInt(7)) {
                case 0 -> out[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> out[at] = (byte) random.nextInt(256);
                case 2 -> out[at] = (byte) new int[] {0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF}[random.nextInt(6)];
                case 3 -> {
                    byte[] grown = new byte[out.length + 1];
                    System.arraycopy(out, 0, grown, 0, at);
                    grown[at] = (byte) random.nextInt(256);
                    System.arraycopy(out, at, grown, at + 1, out.length - at);
                    out = grown;
                }
                case 4 -> {
                    int len = Math.min(out.length - at, random.nextInt(1, 9));
                    byte[] shrunk = new byte[out.length - len];
                    System.arraycopy(out, 0, shrunk, 0, at);
                    System.arraycopy(out, at + len, shrunk, at, out.length - at - len);
                    out = shrunk;
                }
                case 5 -> out = Arrays.copyOf(out, at);
                default -> {
                    int len = Math.min(out.length - at, random.nextInt(1, 17));
                    ByteArrayOutputStream copy = new ByteArrayOutputStream();
                    copy.write(out, 0, at + len);
                    copy.write(out, at, len);
                    copy.write(out, at + len, out.length - at - len);
                    out = copy.toByteArray();
                }
            }
        }
        return out;
    }

    /** Preamble, the true length and a correct CRC around any body. */
    private static byte[] reframe(byte[] body) {
        ByteBuf out = Unpooled.buffer();
        try {
            out.writeInt(0).writeInt(body.length).writeBytes(body).writeInt(Crc16Ibm.compute(body, 0, body.length));
            return toBytes(out);
        } finally {
            out.release();
        }
    }

    private static void runGuarded(long seed, byte[] input, Runnable iteration) {
        try {
            iteration.run();
        } catch (CodecException e) {
            throw new AssertionError("CodecException escaped the harness, seed " + seed, e);
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + " (0x" + Long.toHexString(seed) + "L): " + t
                    + "\ninput " + Hex.of(input), t);
        }
    }

    private static Reason reasonOf(String label) {
        for (Reason r : Reason.values()) {
            if (r.label().equals(label)) {
                return r;
            }
        }
        throw new IllegalArgumentException(label);
    }

    private static byte[] toBytes(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), bytes);
        return bytes;
    }
}
