package org.fleetpipe.teltonika.janitor;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * One pass over {@code connections:registry}: HSCAN page by page (never HGETALL, which would block
 * Redis on a large hash), find the owners whose heartbeat is gone (pipelined EXISTS, cached for
 * the pass), and evict their entries with {@code evict-if-dead.lua}, which re-checks both the
 * heartbeat and the owner atomically. Idempotent: any number of janitors at once reach the same
 * end state and, since only real deletes count, the same total. What else a dead instance left
 * behind is handed on through {@link InstanceLeftovers}.
 */
public final class RegistryJanitor {

    /** IMEIs per script call: keeps each call well under a millisecond of Redis time. */
    private static final int EVICT_BATCH = 200;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final JanitorSettings settings;
    private final JanitorMetrics metrics;
    private final Duration callTimeout;
    private final InstanceDirectory directory;
    private final InstanceLeftovers leftovers;

    /** {@code leftovers}: what else a dead instance left behind, and how it is handed on. */
    public RegistryJanitor(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, JanitorSettings settings,
                           JanitorMetrics metrics, Duration callTimeout, InstanceLeftovers leftovers) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.metrics = metrics;
        this.callTimeout = callTimeout;
        this.directory = new InstanceDirectory(redis, keys);
        this.leftovers = leftovers;
    }

    /** Runs one pass; blocks the calling thread (the janitor's own), never an event loop. */
    public SweepResult sweepOnce() {
        long start = System.nanoTime();
        Map<String, Boolean> alive = new HashMap<>();
        Map<String, Long> evicted = new LinkedHashMap<>();
        long scanned = 0;
        long errors = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs page = ScanArgs.Builder.limit(settings.scanCount());
        do {
            MapScanCursor<String, String> entries = await(redis.hscan(keys.registry(), cursor, page));
            scanned += entries.getMap().size();
            Map<String, List<String>> byOwner = new HashMap<>();
            entries.getMap().forEach((imei, owner) -> byOwner.computeIfAbsent(owner, o -> new ArrayList<>()).add(imei));
            learnLiveness(byOwner.keySet(), alive);
            List<CompletableFuture<Long>> calls = new ArrayList<>();
            List<String> callOwners = new ArrayList<>();
            byOwner.forEach((owner, imeis) -> {
                if (alive.get(owner)) {
                    return;
                }
                for (int from = 0; from < imeis.size(); from += EVICT_BATCH) {
                    calls.add(evict(owner, imeis.subList(from, Math.min(imeis.size(), from + EVICT_BATCH))));
                    callOwners.add(owner);
                }
            });
            for (int i = 0; i < calls.size(); i++) {
                try {
                    long n = await(calls.get(i));
                    if (n > 0) {
                        evicted.merge(callOwners.get(i), n, Long::sum);
                        if (!settings.dryRun()) {
                            // Counted as it happens: a later page that fails must not lose what this one did.
                            metrics.evicted(callOwners.get(i), n);
                        }
                    }
                } catch (RuntimeException e) {
                    errors++;
                }
            }
            cursor = entries;
        } while (!cursor.isFinished());

        LeftoverTally handedOn = new LeftoverTally();
        if (!settings.dryRun()) {
            errors += handOnLeftoversOfDead(handedOn);
            try {
                await(directory.forgetDead());
            } catch (RuntimeException e) {
                errors++;
            }
        }
        long dead = alive.values().stream().filter(a -> !a).count();
        long total = evicted.values().stream().mapToLong(Long::longValue).sum();
        SweepResult result = new SweepResult(scanned, alive.size(), (int) dead, total, errors,
                Duration.ofNanos(System.nanoTime() - start), settings.dryRun(), evicted, handedOn.handedBack(),
                handedOn.failed(), settings.dryRun() ? "paused=" + pausedInDryRun() : leftovers.describe(handedOn));
        metrics.pass(result);
        return result;
    }

    /**
     * What a dry run does not do, comma-separated for a log line: the eviction itself, the hand-on
     * of dead instances' leftovers (the hook's {@link InstanceLeftovers#work()}, e.g. the command
     * hand-back) and the removal of dead ids from the known ids.
     */
    public String pausedInDryRun() {
        return "eviction," + leftovers.work() + ",id-cleanup";
    }

    /**
     * Hands on what the dead holders of leftovers left behind, so nothing of theirs waits forever;
     * returns how many calls failed. One dead instance's failure does not stop the others'.
     */
    private long handOnLeftoversOfDead(LeftoverTally tally) {
        long failures = 0;
        Map<String, Boolean> alive = new HashMap<>();
        try {
            learnLiveness(await(leftovers.holders()), alive);
        } catch (RuntimeException e) {
            return 1;
        }
        for (Map.Entry<String, Boolean> holder : alive.entrySet()) {
            if (!holder.getValue()) {
                try {
                    // Bounded by each of its steps' own timeout, not by one call's.
                    Blocking.await(leftovers.handOn(holder.getKey(), tally));
                } catch (RuntimeException e) {
                    failures++;
                }
            }
        }
        return failures;
    }

    private void learnLiveness(Iterable<String> owners, Map<String, Boolean> alive) {
        Map<String, CompletableFuture<Long>> checks = new HashMap<>();
        for (String owner : owners) {
            if (!alive.containsKey(owner)) {
                checks.put(owner, redis.exists(keys.heartbeat(owner)).toCompletableFuture());
            }
        }
        checks.forEach((owner, exists) -> alive.put(owner, await(exists) == 1L));
    }

    private CompletableFuture<Long> evict(String owner, List<String> imeis) {
        String[] args = new String[imeis.size() + 2];
        args[0] = owner;
        args[1] = settings.dryRun() ? "1" : "0";
        for (int i = 0; i < imeis.size(); i++) {
            args[i + 2] = imeis.get(i);
        }
        CompletionStage<Long> call = JanitorScripts.EVICT_IF_DEAD.call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.registry(), keys.heartbeat(owner)}, args);
        return call.toCompletableFuture();
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, callTimeout);
    }
}
