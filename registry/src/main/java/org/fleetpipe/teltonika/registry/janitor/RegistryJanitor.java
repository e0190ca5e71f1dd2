package org.fleetpipe.teltonika.janitor;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.registry.Blocking;
import org.fleetpipe.teltonika.registry.CommandHandBack;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.LuaScript;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * One pass over {@code connections:registry}: HSCAN page by page (never HGETALL, which would block
 * Redis on a large hash), find the owners whose heartbeat is gone (pipelined EXISTS, cached for
 * the pass), and evict their entries with {@code evict-if-dead.lua}, which re-checks both the
 * heartbeat and the owner atomically. Idempotent: any number of janitors at once reach the same
 * end state and, since only real deletes count, the same total.
 */
public final class RegistryJanitor {

    private static final LuaScript EVICT = LuaScript.fromResource("janitor/evict-if-dead.lua");
    /** IMEIs per script call: keeps each call well under a millisecond of Redis time. */
    private static final int EVICT_BATCH = 200;
    /** In-flight entries per hand-back call (each one rewrites a command hash and a queue). */
    private static final int HAND_BACK_BATCH = 100;

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final JanitorSettings settings;
    private final JanitorMetrics metrics;
    private final Duration callTimeout;
    private final InstanceDirectory directory;
    private final CommandHandBack handBack;

    /** {@code handBack}: how dead instances' unanswered commands go back to their queues (or fail). */
    public RegistryJanitor(RedisAsyncCommands<String, String> redis, RedisKeys keys, JanitorSettings settings,
                           JanitorMetrics metrics, Duration callTimeout, CommandHandBack handBack) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.metrics = metrics;
        this.callTimeout = callTimeout;
        this.directory = new InstanceDirectory(redis, keys);
        this.handBack = handBack;
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

        CommandHandBack.Outcome handedBack = CommandHandBack.Outcome.NONE;
        if (!settings.dryRun()) {
            HandBackTally commands = handBackCommandsOfDead();
            handedBack = commands.outcome;
            errors += commands.errors;
            try {
                await(directory.forgetDead());
            } catch (RuntimeException e) {
                errors++;
            }
        }
        long dead = alive.values().stream().filter(a -> !a).count();
        long total = evicted.values().stream().mapToLong(Long::longValue).sum();
        SweepResult result = new SweepResult(scanned, alive.size(), (int) dead, total, errors,
                Duration.ofNanos(System.nanoTime() - start), settings.dryRun(), evicted, handedBack.handedBack(),
                handedBack.failed());
        metrics.pass(result);
        return result;
    }

    /** What the hand-back of one pass did so far, and how many of its calls failed. */
    private static final class HandBackTally {
        CommandHandBack.Outcome outcome = CommandHandBack.Outcome.NONE;
        long errors;
    }

    /**
     * Commands a dead instance sent and got no reply for go back to the head of their device
     * queues (or fail as {@code attempts}), so nothing stays in flight forever. Its in-flight hash
     * is walked with HSCAN like the registry, a bounded batch per script call (which re-checks that
     * the heartbeat is still missing); what a failed call left is handed back at the next pass.
     */
    private HandBackTally handBackCommandsOfDead() {
        HandBackTally tally = new HandBackTally();
        Map<String, Boolean> alive = new HashMap<>();
        try {
            learnLiveness(await(redis.smembers(keys.commandsInFlightInstances())), alive);
        } catch (RuntimeException e) {
            tally.errors++;
            return tally;
        }
        alive.forEach((instance, live) -> {
            if (!live) {
                try {
                    handBackAll(instance, tally);
                } catch (RuntimeException e) {
                    tally.errors++;
                }
            }
        });
        return tally;
    }

    private void handBackAll(String instance, HandBackTally tally) {
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs page = ScanArgs.Builder.limit(settings.scanCount());
        do {
            MapScanCursor<String, String> entries = await(redis.hscan(keys.commandsInFlight(instance), cursor, page));
            List<String> imeis = new ArrayList<>(entries.getMap().keySet());
            // An empty page still calls once, so an instance whose hash is already empty leaves the set.
            for (int from = 0; from == 0 || from < imeis.size(); from += HAND_BACK_BATCH) {
                List<String> batch = imeis.subList(from, Math.min(imeis.size(), from + HAND_BACK_BATCH));
                tally.outcome = tally.outcome.plus(await(handBack.ofDeadInstance(instance, batch)));
            }
            cursor = entries;
        } while (!cursor.isFinished());
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
        CompletionStage<Long> call = EVICT.call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.registry(), keys.heartbeat(owner)}, args);
        return call.toCompletableFuture();
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, callTimeout);
    }
}
