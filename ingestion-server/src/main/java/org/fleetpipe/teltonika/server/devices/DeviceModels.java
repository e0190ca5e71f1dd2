package org.fleetpipe.teltonika.server.devices;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.TelemetryKeys;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * The device model of each IMEI, in the hash {@code devices:models} (IMEI to model, as given): set
 * by operators through the API or learned from a {@code getver} reply, read by the bridge and the
 * reference consumer to name IO elements.
 */
public final class DeviceModels {

    /** A model name: 1..32 letters, digits, {@code _} or {@code -}. */
    public static final Pattern MODEL = Pattern.compile("[A-Za-z0-9_-]{1,32}");

    private final RedisClusterAsyncCommands<String, String> redis;
    private final String key;
    private final IoDictionary dictionary;

    public DeviceModels(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, IoDictionary dictionary) {
        this.redis = redis;
        this.key = new TelemetryKeys(keys.namespace()).deviceModels();
        this.dictionary = dictionary;
    }

    /** Whether {@code model} is in the IO dictionary (any case); an unknown one gets no IO names. */
    public boolean known(String model) {
        return dictionary.knows(model);
    }

    /** The model stored for {@code imei}, if any. */
    public CompletionStage<Optional<String>> find(Imei imei) {
        return redis.hget(key, imei.value()).thenApply(Optional::ofNullable);
    }

    /** Stores {@code model} (checked against {@link #MODEL}) for {@code imei}, replacing any. */
    public CompletionStage<Void> store(Imei imei, String model) {
        if (!MODEL.matcher(model).matches()) {
            throw new IllegalArgumentException("not a model name: " + model);
        }
        return redis.hset(key, imei.value(), model).thenApply(added -> null);
    }

    /** Removes the model of {@code imei}; false when none was stored. */
    public CompletionStage<Boolean> remove(Imei imei) {
        return redis.hdel(key, imei.value()).thenApply(removed -> removed > 0);
    }
}
