package org.fleetpipe.teltonika.server.stream;

import java.util.List;

/**
 * The telemetry stream as the last retention pass saw it, right after trimming.
 *
 * @param length   entries in the stream
 * @param trimmed  entries the pass removed
 * @param firstId  oldest entry's id; empty when the stream is empty
 * @param lastId   newest entry's id; empty when the stream is empty
 * @param usedMemory Redis's used_memory (bytes)
 * @param maxMemory  Redis's maxmemory (bytes); 0 when it has none
 * @param takenAt  when the pass ran (ms since the epoch); 0 before the first pass
 */
public record StreamSnapshot(long length, long trimmed, String firstId, String lastId, long usedMemory,
                             long maxMemory, List<GroupPosition> groups, long takenAt) {

    public static final StreamSnapshot NONE = new StreamSnapshot(0, 0, "", "", 0, 0, List.of(), 0);

    public boolean hasGroups() {
        return !groups.isEmpty();
    }

    /** Redis's used memory as a share of its maxmemory; 0 when it has no maxmemory. */
    public double memoryFraction() {
        return maxMemory > 0 ? (double) usedMemory / maxMemory : 0;
    }

    /**
     * Entries the slowest group still needs: delivered but unacknowledged, and undelivered (the
     * latter counted by Redis 7, estimated before). Unlike {@link #length} it leaves out what a
     * replay window keeps.
     */
    public long unread() {
        long most = 0;
        for (GroupPosition g : groups) {
            most = Math.max(most, g.pending() + g.lag(this));
        }
        return Math.min(most, length);
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
