package org.fleetpipe.teltonika.server.ingest;

import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;

/**
 * What makes two records the same for deduplication: a 64-bit hash of the device time and the
 * content (codec, priority, position, event, generation type, IO), sent as a signed decimal so
 * Redis keeps it as an 8-byte intset member. Same time with different content is a different record.
 */
final class RecordIdentity {

    private static final long SEED = 0x9E3779B97F4A7C15L;
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private RecordIdentity() {
    }

    /**
     * MurmurHash3's 64-bit block step over each field, then its finaliser. It replaced a byte-wise
     * FNV-1a that took a sixth of the server's CPU under load (eight dependent multiplies per field).
     * Reads the cursor's current record, its IO elements to the last.
     */
    static long of(CodecId codec, AvlRecordCursor r) {
        long h = SEED;
        h = step(h, r.timestamp());
        h = step(h, codec.wire());
        h = step(h, r.priority());
        h = step(h, r.longitude());
        h = step(h, r.latitude());
        h = step(h, r.altitude());
        h = step(h, r.angle());
        h = step(h, r.satellites());
        h = step(h, r.speed());
        h = step(h, r.eventIoId());
        h = step(h, r.generationType());
        int n = 0;
        while (r.nextIo()) {
            n++;
            h = step(h, r.ioId());
            if (!r.ioVariable()) {
                h = step(h, r.ioWidth());
                h = step(h, r.ioValue());
            } else {
                int length = r.ioVariableLength();
                // Tagged length first: never equal to a fixed element's width (1 to 8), and values
                // of different lengths never share a word sequence.
                h = step(h, (1L << 32) | length);
                for (int at = 0; at < length; at += 8) {
                    long word = 0;
                    for (int i = at; i < Math.min(at + 8, length); i++) {
                        word = (word << 8) | (r.ioVariableByte(i) & 0xFF);
                    }
                    h = step(h, word);
                }
            }
        }
        h = step(h, n);
        return finish(h);
    }

    private static long step(long h, long value) {
        long k = Long.rotateLeft(value * C1, 31) * C2;
        return Long.rotateLeft(h ^ k, 27) * 5 + 0x52dce729;
    }

    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }
}
