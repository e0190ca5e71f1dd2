package org.fleetpipe.teltonika.server.ops;

import io.lettuce.core.Range;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandExpiry;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what nobody will ever use, on a ticker and on demand: orphaned command hashes (failed
 * into {@code dlq:commands}, never dropped silently), and dead letters past their TTL; on demand
 * also the queued commands past their TTL, which the command sweep fails on its own otherwise. A dry run counts and changes nothing. Every purge logs and
 * counts what it removed and why.
 */
public final class Purger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Purger.class);

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final OpsSettings settings;
    private final CommandExpiry commands;
    private final IngestionMetrics metrics;
    private final Duration timeout;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;

    /** {@code commands} fails the commands nobody will deliver; the passes run on {@code jobs}. */
    public Purger(RedisAsyncCommands<String, String> redis, RedisKeys keys, OpsSettings settings,
                  CommandExpiry commands, IngestionMetrics metrics, Duration timeout, PeriodicJobs jobs) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.commands = commands;
        this.metrics = metrics;
        this.timeout = timeout;
        this.jobs = jobs;
    }

    public void start() {
        Duration period = settings.purgeInterval();
        job = jobs.start("purge", PeriodicJobs.randomPartOf(period), period, () -> {
            try {
                purge(false, false);
            } catch (RuntimeException e) {
                LOG.warn("purge failed, next one in {}: {}", period, e.toString());
            }
        });
    }

    /** A purge on the periodic jobs' threads, for the API: the caller's event loop never blocks. */
    public java.util.concurrent.CompletableFuture<PurgeReport> purgeSoon(boolean dryRun) {
        java.util.concurrent.CompletableFuture<PurgeReport> result = new java.util.concurrent.CompletableFuture<>();
        jobs.execute(() -> {
            try {
                result.complete(purge(dryRun));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** One purge, as an operator asks for it; blocks the calling thread (never an event loop). */
    public PurgeReport purge(boolean dryRun) {
        return purge(dryRun, true);
    }

    /**
     * {@code queued}: also the queued commands past their TTL, which the command sweep fails on its own
     * every sweep interval, so the periodic purge leaves them to it.
     */
    private PurgeReport purge(boolean dryRun, boolean queued) {
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        long expired = queued ? commands.expireAllQueued(dryRun) : 0;
        long orphaned = commands.failOrphans(dryRun, settings.orphanScanPerPass());
        Range<Long> old = Range.create(0L, now - settings.deadLetterTtl().toMillis());
        long frames = dryRun ? await(redis.zcount(keys.frameDeadLetters(), old))
                : await(redis.zremrangebyscore(keys.frameDeadLetters(), old));
        long commandLetters = dryRun ? await(redis.zcount(keys.commandDeadLetters(), old))
                : await(redis.zremrangebyscore(keys.commandDeadLetters(), old));
        PurgeReport report = new PurgeReport(dryRun, expired, orphaned, frames, commandLetters,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        if (!dryRun) {
            metrics.purged("expired-command", expired);
            metrics.purged("orphaned-command", orphaned);
            metrics.purged("frame-dead-letter", frames);
            metrics.purged("command-dead-letter", commandLetters);
        }
        if (report.total() > 0 || dryRun) {
            LOG.info("purge{}: expired-commands={} orphaned-commands={} frame-dead-letters-past-ttl={} "
                            + "command-dead-letters-past-ttl={} elapsed={}ms", dryRun ? " (dry run)" : "", expired,
                    orphaned, frames, commandLetters, report.elapsedMs());
        }
        return report;
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }

    @Override
    public void close() {
        if (job != null) {
            job.stop();
        }
    }
}
