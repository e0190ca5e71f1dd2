package org.fleetpipe.teltonika.bridge.devices;

import io.lettuce.core.KeyValue;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The device model of each IMEI (the hash {@code devices:models}), cached for a while: one HMGET
 * per batch for the devices not seen lately, instead of a lookup per record. A model set through
 * the API reaches the payloads within {@code ttlMillis}.
 */
public final class DeviceModels {

    private static final String NONE = "";
    /** Past this many cached devices the cache starts over, so a spray of IMEIs cannot grow it. */
    private static final int MAX_CACHED = 500_000;

    private record Cached(String model, long until) {}

    private final RedisClusterCommands<String, String> redis;
    private final String key;
    private final long ttlMillis;
    private final LongSupplier clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    public DeviceModels(RedisClusterCommands<String, String> redis, String key, long ttlMillis, LongSupplier clock) {
        this.redis = redis;
        this.key = key;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    /** Looks up, in one round trip, every device of a batch whose model is not cached. */
    public void prefetch(Collection<String> imeis) {
        long now = clock.getAsLong();
        Set<String> missing = new LinkedHashSet<>();
        for (String imei : imeis) {
            Cached cached = cache.get(imei);
            if (cached == null || cached.until() < now) {
                missing.add(imei);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        if (cache.size() > MAX_CACHED) {
            cache.clear();
        }
        List<KeyValue<String, String>> found = redis.hmget(key, missing.toArray(String[]::new));
        long until = now + ttlMillis;
        for (KeyValue<String, String> value : found) {
            cache.put(value.getKey(), new Cached(value.getValueOrElse(NONE), until));
        }
    }

    /** The model of a device prefetched before, or null when none is set. */
    public String modelOf(String imei) {
        Cached cached = cache.get(imei);
        return cached == null || cached.model().isEmpty() ? null : cached.model();
    }
}
