package org.fleetpipe.teltonika.server.stream;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * Each device's share of the entries the consumer groups still need, estimated on this instance:
 * what the device wrote, scaled down on every retention pass by the share of this instance's writes
 * the stream no longer holds unread (consumers read them). A device past {@code maxPerDevice} has
 * its packets held alone while the others keep their ACKs, so one device cannot fill the stream's
 * budget for everybody. The estimate errs towards holding a heavy writer longer: with several
 * instances, or consumers that read in order, a device's oldest entries are read first.
 */
public final class DeviceStreamShares {

    private final long maxPerDevice;
    private final Map<Imei, AtomicLong> unread = new ConcurrentHashMap<>();

    /** {@code maxPerDevice} 0 = no per-device share. */
    public DeviceStreamShares(long maxPerDevice) {
        this.maxPerDevice = maxPerDevice;
    }

    /** The share of {@code settings}' cap one device may hold; 0 when either is off. */
    public static DeviceStreamShares of(StreamRetentionSettings settings, double share) {
        return new DeviceStreamShares(settings.capped() && share > 0 ? Math.max(1, (long) (settings.maxUnread() * share))
                : 0);
    }

    public boolean enabled() {
        return maxPerDevice > 0;
    }

    public long maxPerDevice() {
        return maxPerDevice;
    }

    /** Whether {@code records} more would take the device past its share. */
    public boolean over(Imei imei, int records) {
        if (maxPerDevice == 0) {
            return false;
        }
        AtomicLong n = unread.get(imei);
        return n != null && n.get() + records > maxPerDevice;
    }

    /** Counts {@code records} to the device unless they take it past its share; false (nothing counted) then. */
    public boolean admit(Imei imei, int records) {
        if (maxPerDevice == 0) {
            return true;
        }
        AtomicLong n = unread.computeIfAbsent(imei, k -> new AtomicLong());
        if (n.get() + records > maxPerDevice) {
            return false;
        }
        n.addAndGet(records);
        return true;
    }

    /** {@code records} of the device went to the writer. */
    public void written(Imei imei, int records) {
        if (maxPerDevice > 0) {
            unread.computeIfAbsent(imei, k -> new AtomicLong()).addAndGet(records);
        }
    }

    /** The device's estimate now (tests, logs). */
    public long estimate(Imei imei) {
        AtomicLong n = unread.get(imei);
        return n == null ? 0 : n.get();
    }

    /**
     * Scales every estimate by the unread entries the retention pass measured over the sum of the
     * estimates (at most 1), and forgets devices at 0. Retention thread only.
     */
    public void measured(long streamUnread) {
        if (maxPerDevice == 0 || unread.isEmpty()) {
            return;
        }
        long sum = 0;
        for (AtomicLong n : unread.values()) {
            sum += n.get();
        }
        if (sum <= streamUnread) {
            return;
        }
        double keep = sum == 0 ? 0 : (double) streamUnread / sum;
        unread.values().removeIf(n -> n.updateAndGet(v -> (long) (v * keep)) == 0);
    }

    /** Devices with an estimate now. */
    public int tracked() {
        return unread.size();
    }
}
