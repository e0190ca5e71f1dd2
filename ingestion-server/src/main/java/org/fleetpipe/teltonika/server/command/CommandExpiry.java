package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fails into {@code dlq:commands} the commands nobody will deliver, never dropping one silently:
 * queued ones whose TTL passed (the {@link CommandSweep}, every sweep interval: part of the command
 * contract, never the purge's) and orphaned hashes, queued or sent but in no queue or in-flight place
 * (the purge). A dry run counts and changes nothing. The blocking calls are for the periodic jobs'
 * threads only.
 */
public final class CommandExpiry {

    private static final Logger LOG = LoggerFactory.getLogger(CommandExpiry.class);
    /** Queued commands one expiry call looks at per device. */
    private static final int QUEUE_WINDOW = 100;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CommandKeys commandKeys;
    private final CommandSettings settings;
    private final IngestionMetrics metrics;
    private final Duration timeout;
    /** The command hashes, the namespace's glob characters escaped. */
    private final String pattern;
    /** Where the next orphan check's SCAN begins. */
    private final AtomicReference<ScanCursor> orphanScan = new AtomicReference<>(ScanCursor.INITIAL);

    public CommandExpiry(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, CommandSettings settings,
                         IngestionMetrics metrics, Duration timeout) {
        this.redis = redis;
        this.commandKeys = new CommandKeys(keys);
        this.settings = settings;
        this.metrics = metrics;
        this.timeout = timeout;
        this.pattern = commandKeys.commandPrefix().replaceAll("([\\\\*?\\[\\]])", "\\\\$1") + "*";
    }

    /** Up to {@code limit} devices that have commands queued, oldest first, from position {@code offset}. */
    public CompletionStage<List<String>> queuedDevices(long offset, int limit) {
        return redis.zrange(commandKeys.commandsQueued(), offset, offset + limit - 1);
    }

    /** Fails the device's queued commands whose TTL passed (counts them only, in a dry run); blocks. */
    public long expireQueued(String imei, boolean dryRun) {
        long expired = Blocking.await(CommandScripts.EXPIRE_QUEUED.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {commandKeys.commandQueue(imei), commandKeys.commandsQueued(),
                commandKeys.commandDeadLetters()},
                imei, Long.toString(System.currentTimeMillis()), commandKeys.commandPrefix(),
                Integer.toString(QUEUE_WINDOW),
                Integer.toString(settings.deadLetterMaxEntries()), Long.toString(settings.retention().toMillis()),
                dryRun ? "1" : "0"), timeout);
        if (expired > 0 && !dryRun) {
            metrics.command("expired", expired);
            LOG.info("{} queued command(s) of imei={} expired (TTL passed while the device was offline)", expired,
                    imei);
        }
        return expired;
    }

    /**
     * SCANs at most {@code scanLimit} command hashes and fails the orphans among them: the script
     * decides each one atomically (see {@code fail-orphan.lua}), so a command taken meanwhile is never
     * failed while in flight. The calls of one SCAN page go out together. The SCAN goes on where the
     * previous call stopped, so passes bounded by {@code scanLimit} still reach every hash: started
     * from the beginning each time, they would look at the same first hashes forever.
     */
    public long failOrphans(boolean dryRun, int scanLimit) {
        String now = Long.toString(System.currentTimeMillis());
        String[] tail = {now, Long.toString(settings.retention().toMillis()),
                Integer.toString(settings.deadLetterMaxEntries()), dryRun ? "1" : "0", commandKeys.commandQueuePrefix(),
                commandKeys.commandsInFlight("")};
        long orphaned = 0;
        int inspected = 0;
        ScanCursor cursor = orphanScan.get();
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(500);
        do {
            KeyScanCursor<String> page = await(redis.scan(cursor, args));
            List<CompletionStage<Long>> verdicts = new ArrayList<>(page.getKeys().size());
            for (String key : page.getKeys()) {
                inspected++;
                verdicts.add(CommandScripts.FAIL_ORPHAN.call(redis, ScriptOutputType.INTEGER,
                        new String[] {key, commandKeys.commandDeadLetters()}, tail));
            }
            for (CompletionStage<Long> verdict : verdicts) {
                orphaned += await(verdict);
            }
            cursor = page;
        } while (!cursor.isFinished() && inspected < scanLimit);
        orphanScan.set(cursor.isFinished() ? ScanCursor.INITIAL : cursor);
        return orphaned;
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }
}
