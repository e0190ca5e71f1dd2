package org.fleetpipe.teltonika.server.ops;

import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redis.BackgroundThreads;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandScripts;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what nobody will ever use, on a ticker and on demand: queued commands past their TTL
 * and orphaned command hashes (both failed into {@code dlq:commands}, never dropped silently),
 * and dead letters past their TTL. A dry run counts and changes nothing. Every purge logs and
 * counts what it removed and why.
 */
public final class Purger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Purger.class);
    private static final int DEVICES_PER_PASS = 10_000;
    private static final int QUEUE_WINDOW = 100;

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final OpsSettings settings;
    private final CommandSettings commands;
    private final IngestionMetrics metrics;
    private final Duration timeout;
    private final ScheduledExecutorService thread;

    public Purger(RedisAsyncCommands<String, String> redis, RedisKeys keys, OpsSettings settings,
                  CommandSettings commands, IngestionMetrics metrics, Duration timeout) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.commands = commands;
        this.metrics = metrics;
        this.timeout = timeout;
        this.thread = BackgroundThreads.single("purge");
    }

    public void start() {
        long period = settings.purgeInterval().toMillis();
        thread.scheduleWithFixedDelay(() -> {
            try {
                purge(false);
            } catch (RuntimeException e) {
                LOG.warn("purge failed, next one in {}: {}", settings.purgeInterval(), e.toString());
            }
        }, ThreadLocalRandom.current().nextLong(period), period, TimeUnit.MILLISECONDS);
    }

    /** A purge on the purge thread, for the API: the caller's event loop never blocks. */
    public java.util.concurrent.CompletableFuture<PurgeReport> purgeSoon(boolean dryRun) {
        java.util.concurrent.CompletableFuture<PurgeReport> result = new java.util.concurrent.CompletableFuture<>();
        thread.execute(() -> {
            try {
                result.complete(purge(dryRun));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** One purge; blocks the calling thread (never an event loop). */
    public PurgeReport purge(boolean dryRun) {
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        String dry = dryRun ? "1" : "0";
        long expired = 0;
        for (String imei : await(redis.zrange(keys.commandsQueued(), 0, DEVICES_PER_PASS - 1))) {
            expired += await(CommandScripts.EXPIRE_QUEUED.<Long>call(redis, ScriptOutputType.INTEGER,
                    new String[] {keys.commandQueue(imei), keys.commandsQueued(), keys.commandDeadLetters()},
                    imei, Long.toString(now), keys.commandPrefix(), Integer.toString(QUEUE_WINDOW),
                    Integer.toString(commands.deadLetterMaxEntries()), Long.toString(commands.retention().toMillis()),
                    dry));
        }
        long orphaned = orphans(now, dry);
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

    /** SCANs a bounded number of command hashes; those without expiry and without a place are orphans. */
    private long orphans(long now, String dry) {
        long orphaned = 0;
        int inspected = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(keys.commandPrefix() + "*").limit(500);
        do {
            KeyScanCursor<String> page = await(redis.scan(cursor, args));
            for (String key : page.getKeys()) {
                inspected++;
                if (await(redis.pttl(key)) != -1) {
                    continue;
                }
                List<io.lettuce.core.KeyValue<String, String>> c = await(redis.hmget(key, "id", "imei", "instance"));
                String id = c.get(0).getValueOrElse(null);
                String imei = c.get(1).getValueOrElse(null);
                if (id == null || imei == null) {
                    continue;
                }
                String instance = c.get(2).getValueOrElse(null);
                orphaned += await(CommandScripts.FAIL_ORPHAN.<Long>call(redis, ScriptOutputType.INTEGER,
                        new String[] {key, keys.commandQueue(imei),
                                instance == null ? keys.commandsInFlight("-") : keys.commandsInFlight(instance),
                                keys.commandDeadLetters()},
                        id, Long.toString(now), Long.toString(commands.retention().toMillis()),
                        Integer.toString(commands.deadLetterMaxEntries()), dry));
            }
            cursor = page;
        } while (!cursor.isFinished() && inspected < settings.orphanScanPerPass());
        return orphaned;
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
