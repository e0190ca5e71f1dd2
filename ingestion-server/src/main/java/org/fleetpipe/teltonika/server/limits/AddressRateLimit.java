package org.fleetpipe.teltonika.server.limits;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * A rate per source address, off at 0. The buckets live in a fixed table indexed by a seeded hash
 * of the address, so a flood of spoofed addresses cannot grow memory; two addresses that share a
 * slot share a budget, which only ever makes the limit stricter for them.
 */
public final class AddressRateLimit {

    private static final int SLOTS = 1 << 14;

    private final int perPeriod;
    private final int burst;
    private final Duration period;
    private final LongSupplier nanoClock;
    private final AtomicReferenceArray<TokenBucket> slots;
    /** Per process, so nobody can pick addresses that land in a victim's slot on purpose. */
    private final int seed = ThreadLocalRandom.current().nextInt();

    public AddressRateLimit(int perPeriod, Duration period) {
        this(perPeriod, period, System::nanoTime);
    }

    /** With {@code nanoClock} instead of {@link System#nanoTime()}, for tests. */
    public AddressRateLimit(int perPeriod, Duration period, LongSupplier nanoClock) {
        this(perPeriod, perPeriod, period, nanoClock);
    }

    /** Up to {@code burst} at once per address, refilled at {@code perPeriod} per {@code period}. */
    public AddressRateLimit(int burst, int perPeriod, Duration period, LongSupplier nanoClock) {
        this.perPeriod = perPeriod;
        this.burst = Math.max(burst, perPeriod);
        this.period = period;
        this.nanoClock = nanoClock;
        this.slots = new AtomicReferenceArray<>(perPeriod > 0 ? SLOTS : 0);
    }

    public boolean enabled() {
        return perPeriod > 0;
    }

    /** True when {@code address} is within its rate (and counts it); always true when off or unknown. */
    public boolean tryAcquire(InetAddress address) {
        if (perPeriod <= 0 || address == null) {
            return true;
        }
        int slot = mix(address.hashCode() ^ seed) & (SLOTS - 1);
        TokenBucket bucket = slots.get(slot);
        if (bucket == null) {
            TokenBucket fresh = new TokenBucket(burst, perPeriod, period, nanoClock);
            bucket = slots.compareAndSet(slot, null, fresh) ? fresh : slots.get(slot);
        }
        return bucket.tryTake();
    }

    /** Murmur3's finalizer: IPv4 hash codes are the address itself, and neighbours must spread. */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
