package org.fleetpipe.teltonika.codec.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/**
 * Deterministic random AVL packets for property tests, here and in other modules. The same seed
 * always gives the same sequence, so a failure is replayed with {@code new RandomAvl(seed)}: put
 * {@link #seed()} in the assertion message.
 *
 * <p>Every value respects its codec's wire widths (Codec 8: u8 IO ids and event id; 8E: u16 ids
 * and NX values; 16: u16 ids and a generation type 0..7), and IO elements come in wire order (by
 * width, NX last), so {@code decode(encode(p)).equals(p)} holds for every packet this makes. IO
 * ids are unique within a record.
 *
 * <p>By default values cover their whole wire range (any i32 longitude, u16 angle with the top
 * bit set, u64 IO values with the top bit set, timestamps before 1970 or after 2262...), which is
 * what the codec must carry. {@link #realistic()} narrows GPS, priority and time to what devices
 * send, for consumers that validate or convert values.
 *
 * <p>Not thread safe.
 */
public final class RandomAvl {

    public static final int DEFAULT_MAX_RECORDS = 50;
    public static final int DEFAULT_MAX_PER_GROUP = 8;
    public static final int DEFAULT_MAX_VARIABLE = 3;
    public static final int DEFAULT_MAX_VARIABLE_BYTES = 300;

    private static final long JAN_2015_MS = 1_420_070_400_000L;
    private static final long JAN_2035_MS = 2_051_222_400_000L;

    private final long seed;
    private final Random random;
    private boolean realistic;
    private int maxRecords = DEFAULT_MAX_RECORDS;
    private int maxPerGroup = DEFAULT_MAX_PER_GROUP;
    private int maxVariable = DEFAULT_MAX_VARIABLE;
    private int maxVariableBytes = DEFAULT_MAX_VARIABLE_BYTES;

    public RandomAvl(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
    }

    /** The seed this generator started from: report it so a failure can be replayed. */
    public long seed() {
        return seed;
    }

    /** The underlying source, for test decisions that must replay with the same seed. */
    public Random random() {
        return random;
    }

    /** Plausible device values: |lon| <= 180°, |lat| <= 90°, angle < 360, priority 0..2, 2015..2035. */
    public RandomAvl realistic() {
        this.realistic = true;
        return this;
    }

    /** Records per packet are drawn from 1..max (default 50; the wire allows 255). */
    public RandomAvl maxRecords(int max) {
        if (max < 1 || max > 255) {
            throw new IllegalArgumentException("maxRecords 1..255: " + max);
        }
        this.maxRecords = max;
        return this;
    }

    /** IO elements in each fixed-width group are drawn from 0..max (default 8). */
    public RandomAvl maxPerGroup(int max) {
        // Codec 8 and 16 count all IO of a record in one byte.
        if (max < 0 || max * 4 > 255) {
            throw new IllegalArgumentException("maxPerGroup 0..63: " + max);
        }
        this.maxPerGroup = max;
        return this;
    }

    /** Codec 8E only: NX elements per record from 0..maxCount, each of 0..maxBytes bytes (default 3 and 300). */
    public RandomAvl maxVariable(int maxCount, int maxBytes) {
        if (maxCount < 0 || maxCount > 1000 || maxBytes < 0 || maxBytes > 0xFFFF) {
            throw new IllegalArgumentException("maxVariable " + maxCount + " x " + maxBytes);
        }
        this.maxVariable = maxCount;
        this.maxVariableBytes = maxBytes;
        return this;
    }

    /** One of Codec 8, 8E and 16. */
    public CodecId avlCodec() {
        return switch (random.nextInt(3)) {
            case 0 -> CodecId.CODEC_8;
            case 1 -> CodecId.CODEC_8E;
            default -> CodecId.CODEC_16;
        };
    }

    /** A packet of a random AVL codec. */
    public AvlPacket packet() {
        return packet(avlCodec());
    }

    public AvlPacket packet(CodecId codec) {
        return packet(codec, 1 + random.nextInt(maxRecords));
    }

    public AvlPacket packet(CodecId codec, int records) {
        List<AvlRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            list.add(record(codec));
        }
        return new AvlPacket(codec, list);
    }

    public AvlRecord record(CodecId codec) {
        requireAvl(codec);
        long timestamp = realistic ? JAN_2015_MS + (long) (random.nextDouble() * (JAN_2035_MS - JAN_2015_MS))
                : edgeOr(new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE}, random.nextLong());
        int priority = realistic ? random.nextInt(3) : random.nextInt(256);
        List<IoElement> io = io(codec);
        int eventId;
        if (realistic) {
            eventId = io.isEmpty() || random.nextInt(4) == 0 ? 0 : io.get(random.nextInt(io.size())).id();
        } else {
            eventId = random.nextInt(codec == CodecId.CODEC_8 ? 0x100 : 0x10000);
        }
        int generation = codec == CodecId.CODEC_16 ? random.nextInt(8) : AvlRecord.NO_GENERATION;
        return new AvlRecord(timestamp, priority, gps(), eventId, generation, io);
    }

    public GpsElement gps() {
        if (!realistic) {
            return new GpsElement(edgeOr(new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}, random.nextInt()),
                    edgeOr(new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}, random.nextInt()),
                    (short) edgeOr(new int[] {0, -1, Short.MIN_VALUE, Short.MAX_VALUE}, random.nextInt()),
                    edgeOr(new int[] {0, 0x8000, 0xFFFF}, random.nextInt(0x10000)),
                    random.nextInt(0x100),
                    edgeOr(new int[] {0, 0x8000, 0xFFFF}, random.nextInt(0x10000)));
        }
        if (random.nextInt(16) == 0) {
            // No fix: devices send zeros (the wiki examples look like this).
            return GpsElement.EMPTY;
        }
        return new GpsElement(
                random.nextInt(-1_800_000_000, 1_800_000_001),
                random.nextInt(-900_000_000, 900_000_001),
                (short) random.nextInt(-450, 9000),
                random.nextInt(360),
                random.nextInt(33),
                random.nextInt(251));
    }

    /** IO elements for one record of {@code codec}, in wire order. */
    public List<IoElement> io(CodecId codec) {
        requireAvl(codec);
        List<IoElement> io = new ArrayList<>();
        if (random.nextInt(10) == 0) {
            return io;
        }
        int idBound = codec == CodecId.CODEC_8 ? 0x100 : 0x10000;
        Set<Integer> used = new HashSet<>();
        for (int width = 1; width <= 8; width <<= 1) {
            int n = random.nextInt(maxPerGroup + 1);
            for (int i = 0; i < n; i++) {
                io.add(new IoElement.Fixed(uniqueId(used, idBound), width, fixedValue(width)));
            }
        }
        if (codec == CodecId.CODEC_8E) {
            int n = random.nextInt(maxVariable + 1);
            for (int i = 0; i < n; i++) {
                int len = edgeOr(new int[] {0, 1, maxVariableBytes}, random.nextInt(maxVariableBytes + 1));
                byte[] value = new byte[len];
                random.nextBytes(value);
                io.add(new IoElement.Variable(uniqueId(used, idBound), value));
            }
        }
        return io;
    }

    /** Body bytes (codec id through number of data 2), as UDP carries them. */
    public static byte[] body(AvlPacket packet) {
        ByteBuf out = Unpooled.buffer();
        try {
            return bytes(AvlPacketEncoder.writeBody(out, packet));
        } finally {
            out.release();
        }
    }

    /** A whole TCP frame: preamble, length, body, CRC. */
    public static byte[] tcpFrame(AvlPacket packet) {
        ByteBuf out = Unpooled.buffer();
        try {
            return bytes(AvlPacketEncoder.writeTcpFrame(out, packet));
        } finally {
            out.release();
        }
    }

    private static byte[] bytes(ByteBuf buf) {
        byte[] out = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), out);
        return out;
    }

    private long fixedValue(int width) {
        if (width == 8) {
            return edgeOr(new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE}, random.nextLong());
        }
        long mask = (1L << (width * 8)) - 1;
        long top = 1L << (width * 8 - 1);
        return edgeOr(new long[] {0, mask, top}, random.nextLong() & mask);
    }

    private int uniqueId(Set<Integer> used, int bound) {
        // Every group is at most 63 elements plus a few NX, far below the id space.
        while (true) {
            int id = random.nextInt(bound);
            if (used.add(id)) {
                return id;
            }
        }
    }

    /** One time in eight an edge value, so boundaries are hit within a few hundred draws. */
    private int edgeOr(int[] edges, int value) {
        return random.nextInt(8) == 0 ? edges[random.nextInt(edges.length)] : value;
    }

    private long edgeOr(long[] edges, long value) {
        return random.nextInt(8) == 0 ? edges[random.nextInt(edges.length)] : value;
    }

    private static void requireAvl(CodecId codec) {
        if (!codec.isAvl()) {
            throw new IllegalArgumentException("not an AVL codec: " + codec);
        }
    }
}
