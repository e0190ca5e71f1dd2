package org.fleetpipe.teltonika.server.ops;

/**
 * The health of one queue kind.
 *
 * @param size        entries in it (for pending commands: queued commands of the oldest 10,000 devices)
 * @param oldestAgeMs age of its oldest entry, 0 when empty
 * @param stuck       entries older than the stuck threshold (for pending commands: devices)
 */
public record QueueHealth(String queue, long size, long oldestAgeMs, long stuck, HealthStatus status) {
}
