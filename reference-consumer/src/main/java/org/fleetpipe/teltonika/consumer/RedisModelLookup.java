package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.KeyValue;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.payload.ModelLookup;

/** The consumer's model lookup: an HMGET of the models hash, on the consumer's connection. */
record RedisModelLookup(RedisClusterCommands<String, String> redis, String key) implements ModelLookup {

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
