package org.fleetpipe.teltonika.bridge.devices;

import io.lettuce.core.KeyValue;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.payload.ModelLookup;

/** The bridge's model lookup: one HMGET of the models hash for a batch's devices. */
public record RedisModelLookup(RedisClusterCommands<String, String> redis, String key) implements ModelLookup {

    @Override
    public Map<String, String> modelsOf(List<String> imeis) {
        Map<String, String> models = new HashMap<>();
        for (KeyValue<String, String> value : redis.hmget(key, imeis.toArray(String[]::new))) {
            if (value.hasValue()) {
                models.put(value.getKey(), value.getValue());
            }
        }
        return models;
    }
}
