package org.fleetpipe.teltonika.server.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.json.Json;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Adds refused frames to the capped, time-ordered sorted set {@code dlq:frames}. */
public final class RedisFrameDeadLetters implements FrameDeadLetters {

    private static final Logger LOG = LoggerFactory.getLogger(RedisFrameDeadLetters.class);

    private final RedisClusterAsyncCommands<String, String> redis;
    private final String[] keys;
    private final Supplier<String> instanceId;
    private final int maxEntries;
    private final int maxBytes;
    private final int unauthenticatedMaxBytes;
    private final IngestionMetrics metrics;
    /** Makes every member unique, so two identical frames in the same millisecond are both kept. */
    private final AtomicLong sequence = new AtomicLong();

    public RedisFrameDeadLetters(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, Supplier<String> instanceId,
                                 int maxEntries, int maxBytes, int unauthenticatedMaxBytes,
                                 IngestionMetrics metrics) {
        this.redis = redis;
        this.keys = new String[] {key(keys)};
        this.instanceId = instanceId;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.unauthenticatedMaxBytes = unauthenticatedMaxBytes;
        this.metrics = metrics;
    }

    /** The sorted set {@code dlq:frames}, with the namespace in front: the ops API and the queue health read it. */
    public static String key(RedisKeys keys) {
        return keys.namespace() + "dlq:frames";
    }

    @Override
    public CompletionStage<Void> record(FrameOrigin origin, String reason, String detail, ByteBuf bytes) {
        long now = System.currentTimeMillis();
        String imei = origin.imei();
        // A short prefix of what anyone can send: enough to see what it was, little to store.
        int length = Math.min(bytes.readableBytes(), origin.loggedIn() ? maxBytes : unauthenticatedMaxBytes);
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("hex", ByteBufUtil.hexDump(bytes, bytes.readerIndex(), length));
        entry.put("truncated", length < bytes.readableBytes());
        entry.put("reason", reason);
        entry.put("detail", detail);
        entry.put("imei", imei);
        entry.put("instance", instanceId.get());
        entry.put("at", now);
        entry.put("seq", sequence.incrementAndGet());
        String json;
        try {
            json = Json.MAPPER.writeValueAsString(entry);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return IngestScripts.DEAD_LETTER_ADD.<Long>call(redis, ScriptOutputType.INTEGER, keys, Long.toString(now), json,
                        Integer.toString(maxEntries))
                .handle((ok, error) -> {
                    if (error != null) {
                        metrics.redisError("dead-letter");
                        LOG.warn("could not store a dead letter imei={} reason={}: {}", imei, reason,
                                error.toString());
                    }
                    return null;
                });
    }
}
