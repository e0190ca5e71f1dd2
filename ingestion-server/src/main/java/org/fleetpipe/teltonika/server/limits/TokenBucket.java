package org.fleetpipe.teltonika.server.limits;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A rate with bursts: up to {@code capacity} takes at once, refilled evenly at {@code capacity} per
 * {@code period}. Safe to share between threads (each take is one short synchronized step).
 */
public final class TokenBucket {

    private final double capacity;
    private final double tokensPerNano;
    private final LongSupplier nanoClock;
    private double tokens;
    private long lastNanos;

    public TokenBucket(int capacity, Duration period) {
        this(capacity, period, System::nanoTime);
    }

    /** With {@code nanoClock} instead of {@link System#nanoTime()}, for tests. */
    public TokenBucket(int capacity, Duration period, LongSupplier nanoClock) {
        this(capacity, capacity, period, nanoClock);
    }

    /** Up to {@code capacity} at once, refilled at {@code refill} per {@code period} (a burst larger than the rate). */
    public TokenBucket(int capacity, int refill, Duration period, LongSupplier nanoClock) {
        if (capacity < 1 || refill < 1 || period.isZero() || period.isNegative()) {
            throw new IllegalArgumentException("capacity " + capacity + ", " + refill + " per " + period);
        }
        this.capacity = capacity;
        this.tokensPerNano = refill / (double) period.toNanos();
        this.nanoClock = nanoClock;
        this.tokens = capacity;
        this.lastNanos = nanoClock.getAsLong();
    }

    /** Takes one token; false (and nothing taken) when the bucket is empty. */
    public boolean tryTake() {
        return tryTake(1);
    }

    /** Takes {@code n} tokens at once; false (and nothing taken) when fewer are left. */
    public synchronized boolean tryTake(int n) {
        long now = nanoClock.getAsLong();
        tokens = Math.min(capacity, tokens + (now - lastNanos) * tokensPerNano);
        lastNanos = now;
        if (tokens < n) {
            return false;
        }
        tokens -= n;
        return true;
    }
}
