package org.fleetpipe.teltonika.simulator.device;

import java.time.Duration;
import java.util.Random;

/**
 * Reconnect delays that double from a minimum up to a maximum, with "equal jitter" (half fixed,
 * half random) so a fleet that lost its server does not come back in one synchronised wave.
 */
public final class Backoff {

    private final long minNanos;
    private final long maxNanos;
    private final Random random;
    private int attempts;

    public Backoff(Duration min, Duration max, Random random) {
        if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < min <= max, got " + min + " and " + max);
        }
        this.minNanos = min.toNanos();
        this.maxNanos = max.toNanos();
        this.random = random;
    }

    /** The delay before the next attempt; each call without {@link #reset()} doubles the ceiling. */
    public long nextDelayNanos() {
        long ceiling = ceilingNanos(attempts);
        if (attempts < 62) {
            attempts++;
        }
        long half = ceiling / 2;
        return ceiling - half + random.nextLong(half + 1);
    }

    /** A connection worked: start from the minimum again. */
    public void reset() {
        attempts = 0;
    }

    long ceilingNanos(int attempt) {
        long ceiling = minNanos;
        for (int i = 0; i < attempt && ceiling < maxNanos; i++) {
            ceiling = ceiling > maxNanos / 2 ? maxNanos : ceiling * 2;
        }
        return Math.min(ceiling, maxNanos);
    }
}
