package org.fleetpipe.teltonika.registry;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Reads the known instances and their heartbeats; a known id without a heartbeat is dead. */
public final class InstanceDirectory {

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;

    public InstanceDirectory(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    /** Live instances: id to heartbeat fields, oldest first. */
    public CompletionStage<Map<String, Map<String, String>>> live() {
        return redis.zrange(keys.instanceIds(), 0, -1).thenCompose(ids -> {
            List<CompletableFuture<Map<String, String>>> beats = new ArrayList<>(ids.size());
            for (String id : ids) {
                beats.add(redis.hgetall(keys.heartbeat(id)).toCompletableFuture());
            }
            return CompletableFuture.allOf(beats.toArray(CompletableFuture[]::new)).thenApply(v -> {
                Map<String, Map<String, String>> live = new LinkedHashMap<>();
                for (int i = 0; i < ids.size(); i++) {
                    Map<String, String> beat = beats.get(i).join();
                    if (!beat.isEmpty()) {
                        live.put(ids.get(i), beat);
                    }
                }
                return live;
            });
        });
    }

    /** Removes known ids whose heartbeat is gone; completes with how many. */
    public CompletionStage<Long> forgetDead() {
        return redis.zrange(keys.instanceIds(), 0, -1).thenCompose(ids -> {
            List<CompletableFuture<Long>> exists = new ArrayList<>(ids.size());
            for (String id : ids) {
                exists.add(redis.exists(keys.heartbeat(id)).toCompletableFuture());
            }
            return CompletableFuture.allOf(exists.toArray(CompletableFuture[]::new)).thenCompose(v -> {
                List<String> dead = new ArrayList<>();
                for (int i = 0; i < ids.size(); i++) {
                    if (exists.get(i).join() == 0L) {
                        dead.add(ids.get(i));
                    }
                }
                return dead.isEmpty() ? CompletableFuture.completedFuture(0L)
                        : redis.zrem(keys.instanceIds(), dead.toArray(String[]::new));
            });
        });
    }
}
