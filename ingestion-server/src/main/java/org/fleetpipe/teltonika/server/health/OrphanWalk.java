package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.List;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;

/**
 * An estimate of the orphaned commands (queued in no queue, sent in no in-flight place) that costs
 * a bounded amount per pass: a SCAN over the command hashes carried on from pass to pass, at most
 * {@link #STEPS} pages of about {@link #PAGE} hashes each, each page checked in one read-only
 * script. The count is that of the last complete walk; until one completed, of the walk so far.
 */
final class OrphanWalk {

    static final int PAGE = 1000;
    static final int STEPS = 5;

    /** Orphans found by a walk over {@code hashes} command hashes; {@code complete} once it went round. */
    record Count(long queued, long sent, long hashes, boolean complete) {
    }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CommandKeys commandKeys;
    private final Duration timeout;
    private final String pattern;
    private String cursor = "0";
    private long queued;
    private long sent;
    private long hashes;
    private Count last;

    OrphanWalk(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, Duration timeout) {
        this.redis = redis;
        this.commandKeys = new CommandKeys(keys);
        this.timeout = timeout;
        this.pattern = commandKeys.commandPrefix().replaceAll("([\\\\*?\\[\\]])", "\\\\$1") + "*";
    }

    /** Walks a few more pages; the orphans as known now. */
    Count step() {
        for (int i = 0; i < STEPS; i++) {
            List<Object> answer = Blocking.await(HealthScripts.COUNT_ORPHANS.<List<Object>>call(redis,
                    ScriptOutputType.MULTI, new String[] {commandKeys.commandsQueued()}, cursor,
                    Integer.toString(PAGE), pattern,
                    commandKeys.commandPrefix(), commandKeys.commandQueuePrefix(), commandKeys.commandsInFlight("")),
                    timeout);
            cursor = String.valueOf(answer.get(0));
            hashes += (Long) answer.get(1);
            queued += (Long) answer.get(2);
            sent += (Long) answer.get(3);
            if (cursor.equals("0")) {
                last = new Count(queued, sent, hashes, true);
                queued = 0;
                sent = 0;
                hashes = 0;
                break;
            }
        }
        return last != null ? last : new Count(queued, sent, hashes, false);
    }
}
