package org.fleetpipe.teltonika.server.ops;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;

/** Reads the dead-letter lists ({@code dlq:frames}, {@code dlq:commands}), oldest first. */
public final class DeadLetterQueries {

    /** The two lists. */
    public enum Kind { FRAMES, COMMANDS }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CommandKeys commandKeys;

    public DeadLetterQueries(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
        this.commandKeys = new CommandKeys(keys);
    }

    /** Up to {@code limit} entries (their JSON text) added at or after {@code since} (epoch ms). */
    public CompletionStage<List<String>> list(Kind kind, long since, long limit) {
        String key = kind == Kind.FRAMES ? RedisFrameDeadLetters.key(keys) : commandKeys.commandDeadLetters();
        return redis.zrangebyscore(key, Range.create(since, Long.MAX_VALUE), Limit.create(0, limit));
    }
}
