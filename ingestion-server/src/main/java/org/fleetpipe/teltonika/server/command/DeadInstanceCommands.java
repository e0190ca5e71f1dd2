package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.janitor.InstanceLeftovers;
import org.fleetpipe.teltonika.janitor.LeftoverTally;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/**
 * The janitor's hook for commands: those a dead instance sent and got no reply for go back to the
 * head of their device queues (or fail as {@code attempts}), so nothing stays in flight forever.
 * Its in-flight hash is walked with HSCAN like the registry, a bounded batch per script call
 * (which re-checks that the heartbeat is still missing); what a failed call left is handed back at
 * the next pass.
 */
public final class DeadInstanceCommands implements InstanceLeftovers {

    /** In-flight entries per hand-back call (each one rewrites a command hash and a queue). */
    private static final int HAND_BACK_BATCH = 100;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CommandKeys commandKeys;
    private final CommandHandBack handBack;
    private final ScanArgs page;
    private final Duration callTimeout;
    private final IngestionMetrics metrics;

    /**
     * {@code scanCount}: the HSCAN page size; {@code callTimeout}: how long each call may take;
     * {@code metrics}: where the commands failed as {@code attempts} are counted.
     */
    public DeadInstanceCommands(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, CommandHandBack handBack,
                                int scanCount, Duration callTimeout, IngestionMetrics metrics) {
        this.redis = redis;
        this.commandKeys = new CommandKeys(keys);
        this.handBack = handBack;
        this.page = ScanArgs.Builder.limit(scanCount);
        this.callTimeout = callTimeout;
        this.metrics = metrics;
    }

    @Override
    public CompletionStage<Set<String>> holders() {
        return redis.smembers(commandKeys.commandsInFlightInstances());
    }

    @Override
    public CompletionStage<Void> handOn(String deadInstanceId, LeftoverTally tally) {
        return fromPage(deadInstanceId, ScanCursor.INITIAL, tally);
    }

    @Override
    public String describe(LeftoverTally tally) {
        return "commands-handed-back=" + tally.handedBack() + " commands-failed-attempts=" + tally.failed();
    }

    @Override
    public String work() {
        return "command-hand-back";
    }

    private CompletionStage<Void> fromPage(String instance, ScanCursor cursor, LeftoverTally tally) {
        CompletionStage<MapScanCursor<String, String>> entries =
                timed(redis.hscan(commandKeys.commandsInFlight(instance), cursor, page));
        return entries.thenCompose(scanned -> {
            List<String> imeis = new ArrayList<>(scanned.getMap().keySet());
            return fromBatch(instance, imeis, 0, tally).thenCompose(done -> scanned.isFinished()
                    ? CompletableFuture.<Void>completedFuture(null) : fromPage(instance, scanned, tally));
        });
    }

    /** An empty page still calls once, so an instance whose hash is already empty leaves the set. */
    private CompletionStage<Void> fromBatch(String instance, List<String> imeis, int from, LeftoverTally tally) {
        List<String> batch = imeis.subList(from, Math.min(imeis.size(), from + HAND_BACK_BATCH));
        return timed(handBack.ofDeadInstance(instance, batch)).thenCompose(outcome -> {
            tally.add(outcome.handedBack(), outcome.failed());
            // Counted as each call is done, like the instance's own hand-backs (CommandDispatcher).
            metrics.command("attempts", outcome.failed());
            int next = from + HAND_BACK_BATCH;
            return next < imeis.size() ? fromBatch(instance, imeis, next, tally)
                    : CompletableFuture.<Void>completedFuture(null);
        });
    }

    /** The call, failed after the call timeout as the janitor's own waits are; Lettuce's future itself is left alone. */
    private <T> CompletionStage<T> timed(CompletionStage<T> call) {
        return call.toCompletableFuture().copy().orTimeout(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
