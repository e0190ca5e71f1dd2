package org.fleetpipe.teltonika.server.ingest;

import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/**
 * What makes two records the same for deduplication: a 64-bit hash of the device time and the
 * content (codec, priority, position, event, generation type, IO), sent as a signed decimal so
 * Redis keeps it as an 8-byte intset member. Same time with different content is a different record.
 */
final class RecordIdentity {

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private RecordIdentity() {
    }

    static long of(CodecId codec, AvlRecord r) {
        GpsElement g = r.gps();
        long h = FNV_OFFSET;
        h = mix(h, r.timestamp());
        h = mix(h, codec.wire());
        h = mix(h, r.priority());
        h = mix(h, g.longitude());
        h = mix(h, g.latitude());
        h = mix(h, g.altitude());
        h = mix(h, g.angle());
        h = mix(h, g.satellites());
        h = mix(h, g.speed());
        h = mix(h, r.eventIoId());
        h = mix(h, r.generationType());
        for (IoElement e : r.io()) {
            h = mix(h, e.id());
            if (e instanceof IoElement.Fixed f) {
                h = mix(h, f.width());
                h = mix(h, f.value());
            } else if (e instanceof IoElement.Variable v) {
                for (int i = 0; i < v.length(); i++) {
                    h = (h ^ (v.byteAt(i) & 0xFF)) * FNV_PRIME;
                }
                h = mix(h, v.length());
            }
        }
        return h;
    }

    private static long mix(long h, long value) {
        for (int i = 0; i < 8; i++) {
            h = (h ^ ((value >>> (i * 8)) & 0xFF)) * FNV_PRIME;
        }
        return h;
    }
}
