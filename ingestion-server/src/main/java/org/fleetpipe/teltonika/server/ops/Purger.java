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
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what nobody will ever use: orphaned command hashes (failed into {@code dlq:commands},
 * never dropped silently) and dead letters past their TTL. Scheduled passes do what
 * {@code PURGE_MODE} says (nothing, count only, or remove); a purge on demand says it itself. Queued
 * commands past their TTL are the command sweep's, never the purge's. Every pass logs and counts,
 * by mode, what it removed or would remove.
 */
public final class Purger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Purger.class);

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
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
        this.settings = settings;
        this.commands = commands;
        this.metrics = metrics;
        this.timeout = timeout;
        this.jobs = jobs;
    }

    /** Schedules the passes PURGE_MODE asks for; {@code off} schedules none. */
    public void start() {
        PurgeMode mode = settings.purgeMode();
        Duration period = settings.purgeInterval();
        if (mode == PurgeMode.OFF) {
            LOG.info("scheduled purge: mode=off (PURGE_MODE), no pass runs; POST /api/v1/purge still purges on demand");
            return;
        }
        boolean dryRun = mode == PurgeMode.DRY_RUN;
        LOG.info("scheduled purge: mode={} every={}{}", mode.label(), period,
                dryRun ? " (counts and logs what it would remove, removes nothing; PURGE_MODE=live removes)" : "");
        job = jobs.start("purge", PeriodicJobs.randomPartOf(period), period, () -> {
            try {
                purge(dryRun);
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
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        long orphaned = commands.failOrphans(dryRun, settings.orphanScanPerPass());
        Range<Long> old = Range.create(0L, now - settings.deadLetterTtl().toMillis());
        long frames = dryRun ? await(redis.zcount(keys.frameDeadLetters(), old))
                : await(redis.zremrangebyscore(keys.frameDeadLetters(), old));
        long commandLetters = dryRun ? await(redis.zcount(keys.commandDeadLetters(), old))
                : await(redis.zremrangebyscore(keys.commandDeadLetters(), old));
        PurgeReport report = new PurgeReport(dryRun, orphaned, frames, commandLetters,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        String mode = report.mode().label();
        // A dry run counts too: what it would remove is what an operator weighs before going live.
        metrics.purgePass(mode);
        metrics.purged("orphaned-command", mode, orphaned);
        metrics.purged("frame-dead-letter", mode, frames);
        metrics.purged("command-dead-letter", mode, commandLetters);
        if (report.total() > 0 || dryRun) {
            // mode=dry-run: the counts are what a live pass would remove now.
            LOG.info("purge: mode={} orphaned-commands={} frame-dead-letters-past-ttl={} "
                            + "command-dead-letters-past-ttl={} elapsed={}ms", mode, orphaned, frames, commandLetters,
                    report.elapsedMs());
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
