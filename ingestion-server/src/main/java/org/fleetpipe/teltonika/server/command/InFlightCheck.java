package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's own {@code commands:inflight:{id}} held against the registry: an entry whose
 * device is registered to another instance now, or that has been in flight longer than the reply
 * timeout and a margin, will never be ended by a send of this instance (its {@code finish} write
 * failed, or a hand-back did), and the janitor only hands back the commands of dead instances. It
 * goes back to its queue (or fails as {@code attempts}) through the hand-back script, which
 * re-checks each entry and its age atomically, so a finish or a new send in between wins. One HSCAN
 * page per pass; the cursor goes on at the next pass. The blocking calls are for the periodic
 * jobs' threads only.
 */
public final class InFlightCheck {

    private static final Logger LOG = LoggerFactory.getLogger(InFlightCheck.class);
    /** In-flight entries per hand-back call (each one may rewrite a command hash and a queue). */
    private static final int BATCH = 100;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CommandKeys commandKeys;
    private final Supplier<String> instanceId;
    private final CommandHandBack handBack;
    private final IngestionMetrics metrics;
    private final Duration limit;
    private final Duration timeout;
    private final ScanArgs page;
    private String scanning;
    private ScanCursor cursor = ScanCursor.INITIAL;

    /**
     * {@code limit}: the longest a command may be in flight before it counts as left behind (the
     * reply timeout and a margin for its finish); {@code pageSize}: HSCAN's COUNT;
     * {@code timeout}: how long each Redis call may take.
     */
    public InFlightCheck(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, Supplier<String> instanceId,
                         CommandHandBack handBack, IngestionMetrics metrics, Duration limit, int pageSize,
                         Duration timeout) {
        this.redis = redis;
        this.commandKeys = new CommandKeys(keys);
        this.instanceId = instanceId;
        this.handBack = handBack;
        this.metrics = metrics;
        this.limit = limit;
        this.timeout = timeout;
        this.page = ScanArgs.Builder.limit(pageSize);
    }

    /** Checks the next page of this instance's in-flight hash; blocks. Returns what it handed back and failed. */
    public CommandHandBack.Outcome checkPage() {
        String instance = instanceId.get();
        if (!instance.equals(scanning)) {
            // A new id (after a lost heartbeat) has a new hash; the old one is the janitor's now.
            scanning = instance;
            cursor = ScanCursor.INITIAL;
        }
        MapScanCursor<String, String> scanned = Blocking.await(redis.hscan(commandKeys.commandsInFlight(instance),
                cursor, page), timeout);
        cursor = scanned.isFinished() ? ScanCursor.INITIAL : scanned;
        List<Map.Entry<String, String>> entries = new ArrayList<>(scanned.getMap().entrySet());
        CommandHandBack.Outcome outcome = CommandHandBack.Outcome.NONE;
        for (int from = 0; from < entries.size(); from += BATCH) {
            Map<String, String> batch = new LinkedHashMap<>();
            entries.subList(from, Math.min(entries.size(), from + BATCH))
                    .forEach(e -> batch.put(e.getKey(), e.getValue()));
            outcome = outcome.plus(Blocking.await(handBack.ofStaleEntries(instance, batch, limit), timeout));
        }
        if (outcome.handedBack() > 0 || outcome.failed() > 0) {
            metrics.command("handed-back", outcome.handedBack());
            metrics.command("attempts", outcome.failed());
            LOG.info("in-flight check: instance={} handed-back={} failed-attempts={}: commands whose device is "
                    + "registered elsewhere or that were in flight longer than {} (a finish that did not reach "
                    + "Redis)", instance, outcome.handedBack(), outcome.failed(), limit);
        }
        return outcome;
    }
}
