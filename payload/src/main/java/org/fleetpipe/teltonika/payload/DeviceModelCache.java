package org.fleetpipe.teltonika.payload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The device model of each IMEI, looked up through a {@link ModelLookup} at most once per {@code ttl}
 * and device (a model set or changed meanwhile shows within it), not once per record; a missing
 * model is remembered too. Safe for concurrent use.
 *
 * <p>Eviction: an entry is looked up again once its {@code ttl} passed; a lookup that would pass
 * {@link #MAX_DEVICES} cached devices first drops the expired ones, and all when that leaves the
 * cache full. Not least-recently-used: that orders every read under a lock on the bridge's
 * delivery threads, and it would not help where the bound is reached, since a fleet larger than the
 * bound reporting in turn misses under LRU too; a cache started over costs one lookup per batch, as
 * at start.
 */
public final class DeviceModelCache {

    /** How long a device's model is used before it is looked up again: the bridge's and the consumer's. */
    public static final Duration TTL = Duration.ofSeconds(60);
    /** Past this many cached devices the cache is trimmed, so a spray of made-up IMEIs cannot grow it. */
    static final int MAX_DEVICES = 500_000;
    private static final String NONE = "";

    private record Cached(String model, long until) {
    }

    private final ModelLookup lookup;
    private final int maxDevices;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    /** {@code nanoClock}: {@link System#nanoTime}, or a test's. */
    public DeviceModelCache(ModelLookup lookup, Duration ttl, LongSupplier nanoClock) {
        this(lookup, MAX_DEVICES, ttl, nanoClock);
    }

    DeviceModelCache(ModelLookup lookup, int maxDevices, Duration ttl, LongSupplier nanoClock) {
        this.lookup = lookup;
        this.maxDevices = maxDevices;
        this.ttlNanos = ttl.toNanos();
        this.nanoClock = nanoClock;
    }

    /** With {@link #TTL} and the system's clock. */
    public DeviceModelCache(ModelLookup lookup) {
        this(lookup, TTL, System::nanoTime);
    }

    /**
     * Looks up, in one round trip, every device of a batch whose model is not cached or expired.
     *
     * @throws RuntimeException what the lookup threw (Redis failed); the cache keeps what it had
     */
    public void prefetch(Collection<String> imeis) {
        long now = nanoClock.getAsLong();
        Set<String> missing = new LinkedHashSet<>();
        for (String imei : imeis) {
            Cached cached = cache.get(imei);
            if (cached == null || now - cached.until() >= 0) {
                missing.add(imei);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        Map<String, String> found = lookup.modelsOf(new ArrayList<>(missing));
        if (cache.size() + missing.size() > maxDevices) {
            trim(now);
        }
        long until = now + ttlNanos;
        for (String imei : missing) {
            String model = found.get(imei);
            cache.put(imei, new Cached(model == null ? NONE : model, until));
        }
    }

    /** The model of a device prefetched before, or null when none is stored (or it was not prefetched). */
    public String cachedModelOf(String imei) {
        Cached cached = cache.get(imei);
        return cached == null || cached.model().isEmpty() ? null : cached.model();
    }

    /** The model of {@code imei}, looked up when not cached or expired; null when none is stored. */
    public String modelOf(String imei) {
        Cached cached = cache.get(imei);
        if (cached == null || nanoClock.getAsLong() - cached.until() >= 0) {
            prefetch(List.of(imei));
        }
        return cachedModelOf(imei);
    }

    /** How many devices are cached: for tests. */
    int size() {
        return cache.size();
    }

    private void trim(long now) {
        cache.values().removeIf(cached -> now - cached.until() >= 0);
        if (cache.size() >= maxDevices) {
            cache.clear();
        }
    }
}
