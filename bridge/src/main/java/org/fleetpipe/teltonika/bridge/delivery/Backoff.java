package org.fleetpipe.teltonika.bridge.delivery;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with full jitter: replicas retrying against a sink that just came back do
 * not all knock at the same moment.
 */
public record Backoff(Duration first, Duration max) {

    /** The wait before retry number {@code attempt} (0 for the first retry). */
    public Duration next(int attempt) {
        long ceiling = Math.min(max.toMillis(), first.toMillis() << Math.min(attempt, 20));
        long half = ceiling / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
    }
}
