package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.fleetpipe.teltonika.redis.LuaScript;

/**
 * This replica's partition leases in Redis and the group's member list (bridge README, "Partition
 * leases"): a lease is a key per partition holding the holder's consumer name, taken with SET NX PX,
 * renewed and released only by its holder; a member is a consumer name in a sorted set scored by
 * its last heartbeat, by Redis's clock, gone once older than the ttl.
 */
public final class PartitionLeases {

    private final RedisClusterCommands<String, String> redis;
    private final RedisClusterAsyncCommands<String, String> async;
    private final Duration timeout;
    private final StreamKeys keys;
    private final String me;
    private final Duration ttl;

    /** {@code timeout}: how long one lease script call may take. */
    public PartitionLeases(RedisClusterCommands<String, String> redis, RedisClusterAsyncCommands<String, String> async,
                           Duration timeout, StreamKeys keys, String consumerName, Duration ttl) {
        this.redis = redis;
        this.async = async;
        this.timeout = timeout;
        this.keys = keys;
        this.me = consumerName;
        this.ttl = ttl;
    }

    public Duration ttl() {
        return ttl;
    }

    /**
     * Takes a free lease. One that already holds this consumer's name (this replica, before a restart
     * under the same name) is taken too, by renewing it.
     */
    public boolean take(int partition) {
        String key = keys.lease(partition);
        if ("OK".equals(redis.set(key, me, SetArgs.Builder.nx().px(ttl.toMillis())))) {
            return true;
        }
        return renew(partition);
    }

    /** Extends the lease by the ttl if it is still this replica's; false when it is not (lost). */
    public boolean renew(int partition) {
        return call(LeaseScripts.RENEW, partition, me, Long.toString(ttl.toMillis())) == 1;
    }

    /** Lets the lease go if it is still this replica's, so another replica can take it at once. */
    public boolean release(int partition) {
        return call(LeaseScripts.RELEASE, partition, me) == 1;
    }

    /** Who holds the lease now: a consumer name, or null. */
    public String holder(int partition) {
        return redis.get(keys.lease(partition));
    }

    /**
     * Says this replica is alive and counts the group's live members (this one included): entries
     * not renewed within the ttl are removed first.
     */
    public int heartbeat() {
        List<String> time = redis.time();
        long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        redis.zadd(keys.members(), (double) nowMillis, me);
        redis.zremrangebyscore(keys.members(), Range.create(Double.NEGATIVE_INFINITY,
                (double) (nowMillis - ttl.toMillis())));
        return Math.toIntExact(redis.zcard(keys.members()));
    }

    /** Leaves the member list at a clean stop, so the others' share grows at their next heartbeat. */
    public void leave() {
        redis.zrem(keys.members(), me);
    }

    private long call(LuaScript script, int partition, String... args) {
        try {
            Long answer = script.<Long>call(async, ScriptOutputType.INTEGER, new String[] {keys.lease(partition)}, args)
                    .toCompletableFuture().orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .join();
            return answer == null ? 0 : answer;
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }
}
