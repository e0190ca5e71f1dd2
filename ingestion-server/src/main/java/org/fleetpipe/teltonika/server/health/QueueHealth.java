package org.fleetpipe.teltonika.server.health;

import java.util.Map;

/**
 * The health of one queue kind.
 *
 * @param size        entries in it (for pending commands: queued commands of the oldest 10,000 devices)
 * @param oldestAgeMs age of its oldest entry, 0 when empty (for the telemetry stream: of the oldest
 *                    entry some consumer group has not been delivered)
 * @param stuck       entries older than the stuck threshold (for pending commands: devices)
 * @param detail      more fields for the API answer, by name (the telemetry stream's groups)
 */
public record QueueHealth(String queue, long size, long oldestAgeMs, long stuck, HealthStatus status,
                          Map<String, Object> detail) {

    public QueueHealth(String queue, long size, long oldestAgeMs, long stuck, HealthStatus status) {
        this(queue, size, oldestAgeMs, stuck, status, Map.of());
    }
}
