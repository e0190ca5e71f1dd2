package org.fleetpipe.teltonika.server.stream;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    /**
     * The partitions' snapshots as one, for health and the summed gauges: lengths, trims and each
     * group's pending entries and lag added up, the oldest positions kept, Redis's memory the
     * fullest node's. A group counts the consumers of the partition where it has most.
     */
    public static StreamSnapshot combined(List<StreamSnapshot> partitions) {
        if (partitions.size() == 1) {
            return partitions.get(0);
        }
        long length = 0;
        long trimmed = 0;
        long takenAt = 0;
        String first = "";
        String last = "";
        StreamSnapshot fullest = NONE;
        Map<String, GroupPosition> groups = new LinkedHashMap<>();
        for (StreamSnapshot s : partitions) {
            length += s.length;
            trimmed += s.trimmed;
            takenAt = Math.max(takenAt, s.takenAt);
            first = StreamIds.earlier(first, s.firstId);
            last = StreamIds.later(last, s.lastId);
            if (s.maxMemory > 0 && (fullest.maxMemory == 0 || s.memoryFraction() > fullest.memoryFraction())) {
                fullest = s;
            }
            for (GroupPosition g : s.groups) {
                groups.merge(g.name(), g.counted(s), GroupPosition::plus);
            }
        }
        long used = fullest == NONE ? partitions.get(0).usedMemory : fullest.usedMemory;
        return new StreamSnapshot(length, trimmed, first, last, used, fullest.maxMemory,
                List.copyOf(groups.values()), takenAt);
    }

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
