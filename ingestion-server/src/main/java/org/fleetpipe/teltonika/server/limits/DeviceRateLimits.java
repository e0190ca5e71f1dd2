package org.fleetpipe.teltonika.server.limits;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * A budget of records and bytes per second for each device (IMEI), shared by its connections and
 * its datagrams on this instance, so that neither a flooding connection nor one that reconnects
 * for a fresh budget can take more than a real tracker flushing its backlog. A TCP packet over the
 * budget is delayed (the device waits for its ACK, and reads stop behind it); a datagram over it is
 * dropped unacknowledged. Devices whose buckets are full again are forgotten by {@link #sweep()}:
 * a full bucket is the same as a new one.
 */
public final class DeviceRateLimits {

    private final DeviceRateSettings settings;
    private final int maxTracked;
    private final LongSupplier nanoClock;
    private final Map<Imei, Budget> budgets = new ConcurrentHashMap<>();

    /** {@code maxTracked} bounds the devices remembered: a datagram of a device new past it is dropped. */
    public DeviceRateLimits(DeviceRateSettings settings, int maxTracked) {
        this(settings, maxTracked, System::nanoTime);
    }

    /** With {@code nanoClock} instead of {@link System#nanoTime()}, for tests. */
    public DeviceRateLimits(DeviceRateSettings settings, int maxTracked, LongSupplier nanoClock) {
        this.settings = settings;
        this.maxTracked = maxTracked;
        this.nanoClock = nanoClock;
    }

    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * Takes a TCP packet's records and bytes from its device's budget, always; the nanoseconds to wait
     * before writing it (0 = now). Each connection has one packet in the writer at a time, so the debt
     * a device can run up is one packet's.
     */
    public long delayNanos(Imei imei, int records, int bytes) {
        if (!settings.enabled()) {
            return 0;
        }
        long now = nanoClock.getAsLong();
        // Logged-in connections are bounded by MAX_CONNECTIONS: past maxTracked they are still tracked.
        return budgets.computeIfAbsent(imei, k -> new Budget(now)).take(records, bytes, now);
    }

    /** Takes a datagram's records and bytes only if its device's budget has them now; false = drop it. */
    public boolean tryTakeNow(Imei imei, int records, int bytes) {
        if (!settings.enabled()) {
            return true;
        }
        long now = nanoClock.getAsLong();
        Budget budget = budgets.get(imei);
        if (budget == null) {
            if (budgets.size() >= maxTracked) {
                return false;
            }
            budget = budgets.computeIfAbsent(imei, k -> new Budget(now));
        }
        return budget.tryTake(records, bytes, now);
    }

    /** Forgets the devices whose budgets are full again. Any thread; O(devices tracked). */
    public void sweep() {
        long now = nanoClock.getAsLong();
        budgets.values().removeIf(b -> b.full(now));
    }

    /** Devices remembered now (those that used part of their budget recently). */
    public int tracked() {
        return budgets.size();
    }

    /** One device's two buckets; a bucket with a rate of 0 is absent. */
    private final class Budget {
        private final DebtBucket records;
        private final DebtBucket bytes;

        Budget(long now) {
            records = settings.recordsPerSecond() > 0
                    ? new DebtBucket(settings.recordsBurst(), settings.recordsPerSecond(), now) : null;
            bytes = settings.bytesPerSecond() > 0
                    ? new DebtBucket(settings.bytesBurst(), settings.bytesPerSecond(), now) : null;
        }

        synchronized long take(int n, int size, long now) {
            long wait = records == null ? 0 : records.take(n, now);
            return Math.max(wait, bytes == null ? 0 : bytes.take(size, now));
        }

        synchronized boolean tryTake(int n, int size, long now) {
            if ((records != null && !records.has(n, now)) || (bytes != null && !bytes.has(size, now))) {
                return false;
            }
            take(n, size, now);
            return true;
        }

        synchronized boolean full(long now) {
            return (records == null || records.full(now)) && (bytes == null || bytes.full(now));
        }
    }
}
