package org.fleetpipe.teltonika.server.stream;

import java.util.List;

/**
 * The telemetry stream as the last retention pass saw it, right after trimming.
 *
 * @param length   entries in the stream
 * @param trimmed  entries the pass removed
 * @param firstId  oldest entry's id; empty when the stream is empty
 * @param lastId   newest entry's id; empty when the stream is empty
 * @param takenAt  when the pass ran (ms since the epoch); 0 before the first pass
 */
public record StreamSnapshot(long length, long trimmed, String firstId, String lastId, List<GroupPosition> groups,
                             long takenAt) {

    public static final StreamSnapshot NONE = new StreamSnapshot(0, 0, "", "", List.of(), 0);

    public boolean hasGroups() {
        return !groups.isEmpty();
    }

    /** The largest age of an entry some group has not been delivered yet; 0 when all are up to date. */
    public long oldestUndeliveredAgeMs(long now) {
        long oldest = 0;
        for (GroupPosition g : groups) {
            oldest = Math.max(oldest, g.oldestUndeliveredAgeMs(now));
        }
        return oldest;
    }
}
