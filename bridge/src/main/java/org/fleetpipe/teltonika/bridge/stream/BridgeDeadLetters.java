package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The stream {@code dlq:bridge:<group>}: records the sink refused for good, or entries that are not
 * a record, each with the entry's fields and why. Capped, but never trimmed: at the cap nothing is
 * added, and the bridge holds the entry instead of dropping an older dead letter nobody drained.
 */
public final class BridgeDeadLetters {

    /** The head of a refusal kept with the entry: enough to see why, bounded in size. */
    static final int MAX_REASON_CHARS = 512;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final Duration timeout;
    private final StreamKeys keys;
    private final long maxLength;

    public BridgeDeadLetters(RedisClusterAsyncCommands<String, String> redis, Duration timeout, StreamKeys keys,
                             long maxLength) {
        this.redis = redis;
        this.timeout = timeout;
        this.keys = keys;
        this.maxLength = maxLength;
    }

    /**
     * Writes the entry with {@code dlq_id}, {@code dlq_stream} (its partition's), {@code dlq_reason},
     * {@code dlq_sink} and {@code dlq_at}.
     *
     * @return false when the stream holds {@code --dead-letter-max} entries already: nothing written
     */
    public boolean add(StreamEntry entry, String sink, String reason) {
        Map<String, String> fields = new LinkedHashMap<>(entry.body().toMap());
        fields.put("dlq_id", entry.id());
        fields.put("dlq_stream", entry.stream());
        fields.put("dlq_sink", sink);
        fields.put("dlq_reason", reason.length() <= MAX_REASON_CHARS ? reason
                : reason.substring(0, MAX_REASON_CHARS) + "...");
        fields.put("dlq_at", Long.toString(System.currentTimeMillis()));
        List<String> args = new ArrayList<>(1 + 2 * fields.size());
        args.add(Long.toString(maxLength));
        fields.forEach((name, value) -> {
            args.add(name);
            args.add(value);
        });
        try {
            String id = DeadLetterScripts.ADD.<String>call(redis, ScriptOutputType.VALUE,
                            new String[] {keys.deadLetters()}, args.toArray(String[]::new))
                    .toCompletableFuture().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
            return id != null;
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }
}
