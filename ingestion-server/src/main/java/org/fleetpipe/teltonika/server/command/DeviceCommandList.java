package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * One device's commands, newest first, as {@code GET /api/v1/devices/{imei}/commands} lists them:
 * from the device's index {@code commands:device:{imei}} (written by enqueue.lua) and each
 * command's hash. Queued, in flight and finished commands alike, as long as their hashes live
 * (finished ones COMMAND_RETENTION).
 */
public final class DeviceCommandList {

    /** Finished commands the index keeps besides a full queue and the one in flight. */
    public static final int RECENT = 100;

    /**
     * A page, newest first.
     *
     * @param commands each command's hash fields
     * @param more     older commands follow the last: ask again with {@code before} = its id
     */
    public record Page(List<Map<String, String>> commands, boolean more) {
    }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CommandKeys commandKeys;

    /** @param redis the API's own connection */
    public DeviceCommandList(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys) {
        this.redis = redis;
        this.commandKeys = new CommandKeys(keys);
    }

    /**
     * Up to {@code limit} commands of {@code imei} created before the command {@code before} (null:
     * from the newest); empty when {@code before} is not in the device's index (any more).
     */
    public CompletionStage<Optional<Page>> page(Imei imei, String before, int limit) {
        String index = commandKeys.deviceCommands(imei.value());
        CompletionStage<Long> start = before == null ? CompletableFuture.completedFuture(0L)
                : redis.zrevrank(index, before).thenApply(rank -> rank == null ? null : rank + 1);
        return start.thenCompose(from -> {
            if (from == null) {
                return CompletableFuture.completedFuture(Optional.<Page>empty());
            }
            return redis.zrevrange(index, from, from + limit).thenCompose(ids -> read(ids, limit));
        });
    }

    private CompletionStage<Optional<Page>> read(List<String> ids, int limit) {
        List<CompletableFuture<Map<String, String>>> hashes = new ArrayList<>();
        for (String id : ids.subList(0, Math.min(limit, ids.size()))) {
            hashes.add(redis.hgetall(commandKeys.command(id)).toCompletableFuture());
        }
        return CompletableFuture.allOf(hashes.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<Map<String, String>> commands = new ArrayList<>();
            for (CompletableFuture<Map<String, String>> hash : hashes) {
                // Empty: finished longer than COMMAND_RETENTION ago, its hash gone; the index ages out after it.
                if (!hash.join().isEmpty()) {
                    commands.add(hash.join());
                }
            }
            return Optional.of(new Page(commands, ids.size() > limit));
        });
    }
}
