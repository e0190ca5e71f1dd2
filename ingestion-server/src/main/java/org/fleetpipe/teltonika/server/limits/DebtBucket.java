package org.fleetpipe.teltonika.server.limits;

/**
 * A token bucket that may go into debt: a take always succeeds and says how long to wait until the
 * bucket is out of debt again, so a packet larger than the burst is slowed, never refused. Not
 * thread-safe: its owner synchronizes.
 */
final class DebtBucket {

    private final double capacity;
    private final double tokensPerNano;
    private double tokens;
    private long lastNanos;

    DebtBucket(long capacity, long perSecond, long nowNanos) {
        this.capacity = capacity;
        this.tokensPerNano = perSecond / 1e9;
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    private void refill(long nowNanos) {
        tokens = Math.min(capacity, tokens + (nowNanos - lastNanos) * tokensPerNano);
        lastNanos = nowNanos;
    }

    /** Takes {@code n}; the nanoseconds until the bucket is out of debt (0 when it is not in debt). */
    long take(long n, long nowNanos) {
        refill(nowNanos);
        tokens -= n;
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / tokensPerNano);
    }

    /** Whether {@code n} could be taken now without debt. */
    boolean has(long n, long nowNanos) {
        refill(nowNanos);
        return tokens >= n;
    }

    /** Full again: the same as a bucket never used, so it may be forgotten. */
    boolean full(long nowNanos) {
        refill(nowNanos);
        return tokens >= capacity;
    }
}
