package org.fleetpipe.teltonika.server.health;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The health of one queue kind.
 *
 * @param size          entries in it (for pending commands: queued commands of the oldest 10,000 devices)
 * @param oldestAgeMs   age of its oldest entry, 0 when empty (for the telemetry stream: of the oldest
 *                      entry some consumer group has not been delivered)
 * @param avgAgeMs      mean age of its entries, 0 when empty or not known (the telemetry stream); see
 *                      OPERATIONS.md for how each queue computes it
 * @param ratePerMinute command queues: commands that left it per minute, at least (from successive passes);
 *                      dead letters: new entries per minute over the window; 0 for the telemetry stream
 * @param stuck         entries due and not moving (commands only)
 * @param reason        why the status is what it is, one line
 * @param detail        more fields for the API answer, by name (the telemetry stream's groups, the orphans)
 */
public record QueueHealth(String queue, long size, long oldestAgeMs, long avgAgeMs, double ratePerMinute, long stuck,
                          HealthStatus status, String reason, Map<String, Object> detail) {

    public QueueHealth {
        detail = Collections.unmodifiableMap(new LinkedHashMap<>(detail));
    }

    /** A queue without ages on average, rate or reason (the telemetry stream, whose detail tells). */
    public QueueHealth(String queue, long size, long oldestAgeMs, long stuck, HealthStatus status,
                       Map<String, Object> detail) {
        this(queue, size, oldestAgeMs, 0, 0, stuck, status, "", detail);
    }

    public QueueHealth(String queue, long size, long oldestAgeMs, long stuck, HealthStatus status) {
        this(queue, size, oldestAgeMs, stuck, status, Map.of());
    }
}
