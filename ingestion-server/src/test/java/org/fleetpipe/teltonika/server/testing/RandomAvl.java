package org.fleetpipe.teltonika.server.testing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/**
 * Seeded random AVL packets that reach the corners the golden vectors do not: negative
 * coordinates and altitudes, every IO width with its top bit set, Codec 8E variable-length
 * values (including empty ones). Tests print the seed in their assertion descriptions.
 */
public final class RandomAvl {

    /** 2024-01-01T00:00:00Z, so timestamps look like real ones. */
    private static final long BASE_MILLIS = 1_704_067_200_000L;

    private final long seed;
    private final Random random;

    public RandomAvl(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
    }

    public long seed() {
        return seed;
    }

    public AvlPacket packet(CodecId codec, int records) {
        long start = BASE_MILLIS + (random.nextLong() & 0xFFFFFFFFL) * 1000;
        List<AvlRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            list.add(record(codec, start + i * 1000L));
        }
        return new AvlPacket(codec, list);
    }

    public AvlRecord record(CodecId codec, long timestamp) {
        boolean wideIds = codec != CodecId.CODEC_8;
        GpsElement gps = new GpsElement(
                (int) (Math.floorMod(random.nextLong(), 3_600_000_001L) - 1_800_000_000L),
                random.nextInt(1_800_000_001) - 900_000_000,
                (short) (random.nextInt(65536) - 32768),
                random.nextInt(360),
                random.nextInt(256),
                random.nextInt(65536));
        int event = wideIds ? random.nextInt(65536) : random.nextInt(256);
        int generation = codec == CodecId.CODEC_16 ? random.nextInt(8) : AvlRecord.NO_GENERATION;
        return new AvlRecord(timestamp, random.nextInt(3), gps, event, generation, io(codec, wideIds));
    }

    private List<IoElement> io(CodecId codec, boolean wideIds) {
        int maxId = wideIds ? 65535 : 255;
        Set<Integer> ids = new LinkedHashSet<>();
        while (ids.size() < 12) {
            ids.add(1 + random.nextInt(maxId));
        }
        List<Integer> free = new ArrayList<>(ids);
        List<IoElement> io = new ArrayList<>();
        // Top bit set in every width: the unsigned reading is what the contract asks for.
        io.add(new IoElement.Fixed(free.remove(0), 1, 0x80 | random.nextInt(0x80)));
        io.add(new IoElement.Fixed(free.remove(0), 1, random.nextInt(0x100)));
        io.add(new IoElement.Fixed(free.remove(0), 2, 0x8000 | random.nextInt(0x8000)));
        io.add(new IoElement.Fixed(free.remove(0), 2, random.nextInt(0x10000)));
        io.add(new IoElement.Fixed(free.remove(0), 4, 0x8000_0000L | (random.nextInt() & 0x7FFF_FFFFL)));
        io.add(new IoElement.Fixed(free.remove(0), 4, random.nextInt() & 0xFFFF_FFFFL));
        io.add(new IoElement.Fixed(free.remove(0), 8, Long.MIN_VALUE | random.nextLong()));
        io.add(new IoElement.Fixed(free.remove(0), 8, random.nextLong() >>> 1));
        if (codec == CodecId.CODEC_8E) {
            io.add(new IoElement.Variable(free.remove(0), bytes(1 + random.nextInt(24))));
            io.add(new IoElement.Variable(free.remove(0), new byte[0]));
            io.add(new IoElement.Variable(free.remove(0), new byte[] {(byte) 0xAB, (byte) 0xCD, (byte) 0xEF}));
        }
        return io;
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
