package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.XAddArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stream {@code dlq:bridge:<group>}: records the sink refused for good, or entries that are not
 * a record, each with the entry's fields and why. Capped: a sink refusing everything must not fill Redis.
 */
public final class BridgeDeadLetters {

    /** The head of a refusal kept with the entry: enough to see why, bounded in size. */
    static final int MAX_REASON_CHARS = 512;

    private final RedisClusterCommands<String, String> redis;
    private final StreamKeys keys;
    private final long maxLength;

    public BridgeDeadLetters(RedisClusterCommands<String, String> redis, StreamKeys keys, long maxLength) {
        this.redis = redis;
        this.keys = keys;
        this.maxLength = maxLength;
    }

    /** Writes the entry with {@code dlq_id}, {@code dlq_stream} (its partition's), {@code dlq_reason}, {@code dlq_sink} and {@code dlq_at}. */
    public void add(StreamEntry entry, String sink, String reason) {
        Map<String, String> fields = new LinkedHashMap<>(entry.fields());
        fields.put("dlq_id", entry.id());
        fields.put("dlq_stream", entry.stream());
        fields.put("dlq_sink", sink);
        fields.put("dlq_reason", reason.length() <= MAX_REASON_CHARS ? reason
                : reason.substring(0, MAX_REASON_CHARS) + "...");
        fields.put("dlq_at", Long.toString(System.currentTimeMillis()));
        redis.xadd(keys.deadLetters(), XAddArgs.Builder.maxlen(maxLength).approximateTrimming(), fields);
    }
}
