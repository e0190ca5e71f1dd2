package org.fleetpipe.teltonika.server.ingest;

import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;

/**
 * A packet's first reading, in place: each record's identity, which records repeat an earlier one
 * of the same packet (left out, so a record is stored once, as it would be across packets), how
 * many remain and the newest one's time. One per event loop, reused for every packet: it makes
 * nothing per record.
 */
final class PacketScan {

    /** A packet holds at most 255 records. */
    private static final int MAX_RECORDS = 256;

    private final AvlRecordCursor cursor = new AvlRecordCursor();
    private final long[] ids = new long[MAX_RECORDS];
    private final boolean[] repeat = new boolean[MAX_RECORDS];
    private int size;
    private int count;
    private long newest;

    /** Reads {@code packet}'s records; their identities only with {@code dedup}, else none repeats. */
    void scan(AvlPacketView packet, boolean dedup) {
        CodecId codec = packet.codec();
        size = packet.size();
        count = 0;
        newest = 0;
        AvlRecordCursor r = cursor.reset(packet);
        for (int i = 0; r.next(); i++) {
            ids[i] = dedup ? RecordIdentity.of(codec, r) : 0;
            repeat[i] = dedup && repeatsEarlier(ids, i);
            if (!repeat[i]) {
                count++;
                newest = Math.max(newest, r.timestamp());
            }
        }
    }

    /** The cursor, at the start of {@code packet} again: for the second reading, which encodes it. */
    AvlRecordCursor records(AvlPacketView packet) {
        return cursor.reset(packet);
    }

    /** The records' identities; the first {@link #size()} count. */
    long[] ids() {
        return ids;
    }

    long id(int record) {
        return ids[record];
    }

    boolean repeat(int record) {
        return repeat[record];
    }

    /** Records in the packet. */
    int size() {
        return size;
    }

    /** Records the packet adds: the repeats within it left out. */
    int count() {
        return count;
    }

    /** The newest timestamp of the records it adds; 0 when none. */
    long newest() {
        return newest;
    }

    /** Which of {@code ids} repeat an earlier one. */
    static boolean[] repeats(long[] ids) {
        boolean[] repeat = new boolean[ids.length];
        for (int i = 0; i < ids.length; i++) {
            repeat[i] = repeatsEarlier(ids, i);
        }
        return repeat;
    }

    private static boolean repeatsEarlier(long[] ids, int i) {
        // Quadratic, but a packet holds at most 255 records and the usual one about ten.
        for (int j = 0; j < i; j++) {
            if (ids[j] == ids[i]) {
                return true;
            }
        }
        return false;
    }
}
