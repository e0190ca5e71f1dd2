package org.fleetpipe.teltonika.server.stream;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;

/**
 * Keeps every server of a deployment on one partition count: the first records it in Redis, the
 * others must match it. Two counts at once would put a device's records in two streams (its order
 * lost for consumers) and its dedup sets under two names (a resend to the other replica stored twice).
 */
public final class PartitionLayout {

    private PartitionLayout() {
    }

    /**
     * Records this server's count when none is, else checks it, and likewise which namespace owns the
     * partitioned keys' prefix; blocks (start only).
     */
    public static void claim(RedisClusterCommands<String, String> redis, IngestKeys keys) {
        claimCount(redis, keys);
        claimPartitionedKeys(redis, keys);
    }

    private static void claimCount(RedisClusterCommands<String, String> redis, IngestKeys keys) {
        String mine = Integer.toString(keys.partitions());
        String key = keys.telemetryLayout();
        if (Boolean.TRUE.equals(redis.setnx(key, mine))) {
            return;
        }
        String recorded = redis.get(key);
        if (recorded != null && !recorded.trim().equals(mine)) {
            throw new Conflict("TELEMETRY_PARTITIONS=" + mine + ", but this deployment writes its telemetry in "
                    + recorded.trim() + " partitions (Redis key " + key + "): every server must use the same count;"
                    + " to change it follow OPERATIONS.md, \"Changing the partition count\"");
        }
        if (recorded == null) {
            // Removed between the two calls (an operator resetting it): ours then.
            redis.setnx(key, mine);
        }
    }

    /**
     * A namespace with a hash tag ({@code {a}:}) writes its partitioned keys without the braces
     * ({@code a:telemetry:{0}}), so a deployment named {@code a:} beside it would share its streams
     * and dedup sets: whichever starts second is refused.
     */
    private static void claimPartitionedKeys(RedisClusterCommands<String, String> redis, IngestKeys keys) {
        if (keys.partitions() == 1) {
            return;
        }
        String key = keys.partitionedKeysOwner();
        String mine = keys.keys().namespace();
        if (Boolean.TRUE.equals(redis.setnx(key, mine))) {
            return;
        }
        String owner = redis.get(key);
        if (owner != null && !owner.equals(mine)) {
            throw new Conflict("REDIS_NAMESPACE='" + mine + "' writes its partitioned telemetry keys under the same"
                    + " prefix as the deployment with REDIS_NAMESPACE='" + owner + "' (Redis key " + key + ": a hash"
                    + " tag's braces are left out of those keys): choose a namespace that differs from it in more"
                    + " than braces");
        }
        if (owner == null) {
            redis.setnx(key, mine);
        }
    }

    /** This server's partition count is not the deployment's. */
    public static final class Conflict extends RuntimeException {
        Conflict(String message) {
            super(message);
        }
    }
}
