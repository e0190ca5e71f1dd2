package org.fleetpipe.teltonika.server.stream;

import java.time.Duration;

/**
 * How the telemetry stream is trimmed and when the server stops acknowledging because consumers
 * are too far behind.
 *
 * @param maxLenWithoutGroups entries kept while no consumer group exists (0 = all)
 * @param mode                what a group must have done with an entry before it may be trimmed
 * @param minAge              while groups exist, entries younger than this are kept even when every
 *                            group is done with them: a window to replay or to start a new group in
 * @param interval            how often the stream is trimmed and measured
 * @param maxUnread           entries the groups may still need before packets are no longer
 *                            acknowledged (0 = no cap)
 * @param maxRedisMemory      share of Redis's maxmemory in use from which packets are no longer
 *                            acknowledged while groups exist (0 = off; ignored when Redis has no maxmemory)
 * @param maxHold             how long a packet waits for the back-pressure to lift before its
 *                            connection is closed unacknowledged
 * @param maxHeldRecords      records held at once at most; a packet past it fails at once
 * @param degradedFraction    share of {@code maxUnread} from which the stream's health is degraded
 * @param lagDegradedAge      age of a group's oldest undelivered entry from which the health is degraded
 * @param lagUnhealthyAge     ... unhealthy
 */
public record StreamRetentionSettings(long maxLenWithoutGroups, RetentionMode mode, Duration minAge, Duration interval,
                                      long maxUnread, double maxRedisMemory, Duration maxHold, long maxHeldRecords,
                                      double degradedFraction, Duration lagDegradedAge, Duration lagUnhealthyAge) {

    /** Back-pressure lifts once the stream is below this share of the cap, so it does not flap every tick. */
    public static final double RESUME_FRACTION = 0.9;
    /** ... and once Redis's memory is this far below {@link #maxRedisMemory}. */
    public static final double MEMORY_RESUME_MARGIN = 0.05;

    /**
     * One partition's share when the telemetry is split into {@code partitions} streams: the caps
     * on length and unread entries divided evenly (devices spread evenly over the partitions by
     * their IMEI's hash); the rest is the same.
     */
    public StreamRetentionSettings perPartition(int partitions) {
        if (partitions == 1) {
            return this;
        }
        return new StreamRetentionSettings(share(maxLenWithoutGroups, partitions), mode, minAge, interval,
                share(maxUnread, partitions), maxRedisMemory, maxHold, maxHeldRecords, degradedFraction,
                lagDegradedAge, lagUnhealthyAge);
    }

    private static long share(long total, int partitions) {
        return total == 0 ? 0 : Math.max(1, (total + partitions - 1) / partitions);
    }

    public boolean capped() {
        return maxUnread > 0;
    }

    /** The length below which acknowledging resumes. */
    public long resumeBelow() {
        return (long) (maxUnread * RESUME_FRACTION);
    }

    /** What the cap is compared with: the whole stream, or with a replay window what the groups still need. */
    public long measure(StreamSnapshot stream) {
        return minAge.isZero() ? stream.length() : stream.unread();
    }

    /** Whether the stream, or Redis's memory, reached the point where acknowledging stops. */
    public boolean full(StreamSnapshot stream) {
        return stream.hasGroups() && ((capped() && measure(stream) >= maxUnread)
                || (maxRedisMemory > 0 && stream.maxMemory() > 0 && stream.memoryFraction() >= maxRedisMemory));
    }

    /** Whether both fell far enough below those points for acknowledging to resume. */
    public boolean clear(StreamSnapshot stream) {
        return !stream.hasGroups() || ((!capped() || measure(stream) < resumeBelow())
                && (maxRedisMemory <= 0 || stream.memoryFraction() < maxRedisMemory - MEMORY_RESUME_MARGIN));
    }
}
