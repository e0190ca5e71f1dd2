package org.fleetpipe.teltonika.consumer;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The device model of each IMEI, looked up in the models hash at most once per {@code ttl} and
 * IMEI (a model set or changed meanwhile shows within it), not once per record. A missing model
 * is remembered too. At most {@link #MAX_DEVICES} IMEIs are kept, the least recently used dropped.
 */
public final class DeviceModelCache {

    static final int MAX_DEVICES = 100_000;

    private record Cached(String model, long until) {
    }

    private final Function<String, String> lookup;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Cached> models = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
            return size() > MAX_DEVICES;
        }
    };

    /** @param lookup IMEI to model, null when none (an HGET) */
    public DeviceModelCache(Function<String, String> lookup, Duration ttl, LongSupplier nanoClock) {
        this.lookup = lookup;
        this.ttlNanos = ttl.toNanos();
        this.nanoClock = nanoClock;
    }

    /** The model of {@code imei}, or null when none is stored. */
    public String modelOf(String imei) {
        long now = nanoClock.getAsLong();
        Cached cached = models.get(imei);
        if (cached == null || now - cached.until() >= 0) {
            cached = new Cached(lookup.apply(imei), now + ttlNanos);
            models.put(imei, cached);
        }
        return cached.model();
    }
}
