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
