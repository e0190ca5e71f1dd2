package org.fleetpipe.teltonika.server.ops;

import io.lettuce.core.Range;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandExpiry;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what nobody will ever use or may keep: dead letters past {@code DLQ_TTL}, and orphaned
 * command hashes (failed into {@code dlq:commands}, never dropped silently). Every scheduled pass
 * removes the dead letters past their TTL whatever {@code PURGE_MODE} says (a retention promise
 * must not hang on an unrelated switch); {@code PURGE_MODE} governs only the orphans (nothing,
 * count only, or fail them). A purge on demand says its mode itself, for both. Queued commands past
 * their TTL are the command sweep's, never the purge's. Every pass logs and counts, by mode, what it
 * removed or would remove.
 */
public final class Purger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Purger.class);

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CommandKeys commandKeys;
    private final OpsSettings settings;
    private final CommandExpiry commands;
    private final IngestionMetrics metrics;
    private final Duration timeout;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;

    /** {@code commands} fails the commands nobody will deliver; the passes run on {@code jobs}. */
    public Purger(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, OpsSettings settings,
                  CommandExpiry commands, IngestionMetrics metrics, Duration timeout, PeriodicJobs jobs) {
        this.redis = redis;
        this.keys = keys;
        this.commandKeys = new CommandKeys(keys);
        this.settings = settings;
        this.commands = commands;
        this.metrics = metrics;
        this.timeout = timeout;
        this.jobs = jobs;
    }

    /** Schedules the passes: dead letters past their TTL always go, orphans as PURGE_MODE says. */
    public void start() {
        PurgeMode orphans = settings.purgeMode();
        Duration period = settings.purgeInterval();
        LOG.info("scheduled purge: every={} removes dead letters older than {} (DLQ_TTL); orphaned commands: mode={}{}",
                period, settings.deadLetterTtl(), orphans.label(), switch (orphans) {
                    case OFF -> " (PURGE_MODE: left alone; POST /api/v1/purge still fails them on demand)";
                    case DRY_RUN -> " (PURGE_MODE: counted and logged, not failed; PURGE_MODE=live fails them)";
                    case LIVE -> "";
                });
        job = jobs.start("purge", PeriodicJobs.randomPartOf(period), period, () -> {
            try {
                pass(orphans, false);
            } catch (RuntimeException e) {
                LOG.warn("purge failed, next one in {}: {}", period, e.toString());
            }
        });
    }

    /** A purge on the periodic jobs' threads, for the API: the caller's event loop never blocks. */
    public CompletableFuture<PurgeReport> purgeSoon(boolean dryRun) {
        CompletableFuture<PurgeReport> result = new CompletableFuture<>();
        jobs.execute(() -> {
            try {
                result.complete(purge(dryRun));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** One pass, removing or ({@code dryRun}) only counting; blocks the calling thread (never an event loop). */
    public PurgeReport purge(boolean dryRun) {
        return pass(PurgeMode.ofPass(dryRun), dryRun);
    }

    private PurgeReport pass(PurgeMode orphanMode, boolean deadLettersDryRun) {
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        long orphaned = orphanMode == PurgeMode.OFF ? 0
                : commands.failOrphans(orphanMode == PurgeMode.DRY_RUN, settings.orphanScanPerPass());
        Range<Long> old = Range.create(0L, now - settings.deadLetterTtl().toMillis());
        long frames = deadLettersDryRun ? await(redis.zcount(RedisFrameDeadLetters.key(keys), old))
                : await(redis.zremrangebyscore(RedisFrameDeadLetters.key(keys), old));
        long commandLetters = deadLettersDryRun ? await(redis.zcount(commandKeys.commandDeadLetters(), old))
                : await(redis.zremrangebyscore(commandKeys.commandDeadLetters(), old));
        PurgeReport report = new PurgeReport(deadLettersDryRun, orphaned, frames, commandLetters,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        String lettersMode = PurgeMode.ofPass(deadLettersDryRun).label();
        // A dry run counts too: what it would remove is what an operator weighs before going live.
        metrics.purgePass(orphanMode.label());
        if (orphanMode != PurgeMode.OFF) {
            metrics.purged("orphaned-command", orphanMode.label(), orphaned);
        }
        metrics.purged("frame-dead-letter", lettersMode, frames);
        metrics.purged("command-dead-letter", lettersMode, commandLetters);
        if (report.total() > 0 || orphanMode == PurgeMode.DRY_RUN) {
            // A dry-run mode's counts are what a live pass would remove now.
            LOG.info("purge: orphaned-commands={} (mode={}) frame-dead-letters-past-ttl={} "
                            + "command-dead-letters-past-ttl={} (mode={}) elapsed={}ms", orphaned, orphanMode.label(),
                    frames, commandLetters, lettersMode, report.elapsedMs());
        }
        return report;
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }

    @Override
    public void close() {
        if (job != null) {
            job.stop();
        }
    }
}
