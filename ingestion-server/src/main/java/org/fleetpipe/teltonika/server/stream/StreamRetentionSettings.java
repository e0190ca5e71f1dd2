package org.fleetpipe.teltonika.server.stream;

import java.time.Duration;

/**
 * How the telemetry stream is trimmed and when the server stops acknowledging because consumers
 * are too far behind.
 *
 * @param maxLenWithoutGroups entries kept while no consumer group exists (0 = all)
 * @param mode                what a group must have done with an entry before it may be trimmed
 * @param interval            how often the stream is trimmed and measured
 * @param maxUnread           entries the stream may hold while groups exist before packets are no longer
 *                            acknowledged (0 = no cap)
 * @param maxHold             how long a packet waits for the back-pressure to lift before its
 *                            connection is closed unacknowledged
 * @param degradedFraction    share of {@code maxUnread} from which the stream's health is degraded
 * @param lagDegradedAge      age of a group's oldest undelivered entry from which the health is degraded
 * @param lagUnhealthyAge     ... unhealthy
 */
public record StreamRetentionSettings(long maxLenWithoutGroups, RetentionMode mode, Duration interval, long maxUnread,
                                      Duration maxHold, double degradedFraction, Duration lagDegradedAge,
                                      Duration lagUnhealthyAge) {

    /** Back-pressure lifts once the stream is below this share of the cap, so it does not flap every tick. */
    public static final double RESUME_FRACTION = 0.9;

    public boolean capped() {
        return maxUnread > 0;
    }

    /** The length below which acknowledging resumes. */
    public long resumeBelow() {
        return (long) (maxUnread * RESUME_FRACTION);
    }
}
