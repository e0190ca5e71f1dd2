package org.fleetpipe.teltonika.server.stream;

/**
 * Where one consumer group stands in the stream.
 *
 * @param lastDeliveredId the last entry handed to one of its consumers
 * @param oldestPendingId its oldest entry delivered but not acknowledged; empty when none
 * @param reportedLag     entries not yet delivered, as Redis 7+ reports it; -1 when Redis does not
 * @param nextUndeliveredId the oldest entry not yet delivered to it; empty when it is up to date
 */
public record GroupPosition(String name, long consumers, long pending, String lastDeliveredId,
                            String oldestPendingId, long reportedLag, String nextUndeliveredId) {

    /** This position with its lag as counted in {@code stream} (exact or estimated), to add partitions up. */
    GroupPosition counted(StreamSnapshot stream) {
        return new GroupPosition(name, consumers, pending, lastDeliveredId, oldestPendingId, lag(stream),
                nextUndeliveredId);
    }

    /** Two partitions' positions of one group as one: counts added, the oldest positions kept. */
    GroupPosition plus(GroupPosition other) {
        return new GroupPosition(name, Math.max(consumers, other.consumers), pending + other.pending,
                StreamIds.earlier(lastDeliveredId, other.lastDeliveredId),
                StreamIds.earlier(oldestPendingId, other.oldestPendingId), reportedLag + other.reportedLag,
                StreamIds.earlier(nextUndeliveredId, other.nextUndeliveredId));
    }

    /** Whether {@link #lag} is Redis's count rather than an estimate. */
    public boolean lagExact() {
        return reportedLag >= 0 || nextUndeliveredId.isEmpty();
    }

    /**
     * Entries not yet delivered: Redis's own count where it gives one (7.0+); otherwise estimated
     * from the ids' times, as the share of the stream's time span after the group's position.
     */
    public long lag(StreamSnapshot stream) {
        if (reportedLag >= 0) {
            return reportedLag;
        }
        if (nextUndeliveredId.isEmpty()) {
            return 0;
        }
        long first = StreamIds.millis(stream.firstId());
        long last = StreamIds.millis(stream.lastId());
        long next = StreamIds.millis(nextUndeliveredId);
        if (first < 0 || last <= first || next < first) {
            return stream.length();
        }
        // At least the one entry we know of.
        return Math.max(1, Math.round(stream.length() * (double) (last - next + 1) / (last - first + 1)));
    }

    /** Age of the oldest entry not yet delivered to this group; 0 when it is up to date. */
    public long oldestUndeliveredAgeMs(long now) {
        return age(nextUndeliveredId, now);
    }

    /** Age of the oldest entry delivered but not acknowledged; 0 when none. */
    public long oldestPendingAgeMs(long now) {
        return age(oldestPendingId, now);
    }

    private static long age(String id, long now) {
        long at = StreamIds.millis(id);
        return at < 0 ? 0 : Math.max(0, now - at);
    }
}
