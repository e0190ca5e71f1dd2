package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.Consumer;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Reads the telemetry stream as one consumer of a consumer group, the way a downstream service
 * should: create the group if it is missing; first finish what this consumer was given before it
 * last stopped (a crash between reading and XACK); then read new entries with XREADGROUP,
 * handle them and acknowledge them with XACK; and now and then take over (XAUTOCLAIM) entries
 * that another consumer of the group was given and never acknowledged, because it died. An entry
 * the handler failed on after {@code --max-deliveries} deliveries goes to a dead-letter stream and
 * is acknowledged ({@link DeadLetterStream}), so it cannot hold the group back forever.
 * The ingestion server keeps every entry until each group acknowledged it, so nothing is lost
 * while a consumer is down; it stops acknowledging devices when the groups fall too far behind.
 */
public final class TelemetryConsumer {

    private static final String START = "0-0";

    private final RedisCommands<String, String> redis;
    private final ConsumerOptions options;
    private final EntryHandler handler;
    private final PrintStream progressOut;
    private final Consumer<String> me;
    private final DeadLetterStream deadLetters;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopped;
    private long read;
    private long acked;
    private long claimed;
    private long failed;
    private long deadLettered;
    private long gone;
    private long invalid;
    private String lastId = "";

    public TelemetryConsumer(RedisCommands<String, String> redis, ConsumerOptions options, EntryHandler handler,
                             PrintStream progressOut) {
        this.redis = redis;
        this.options = options;
        this.handler = handler;
        this.progressOut = progressOut;
        this.me = Consumer.from(options.group(), options.consumer());
        this.deadLetters = new DeadLetterStream(redis, options);
    }

    /** Reads until stopped, or until --duration, --max-entries or --until-idle says. */
    public ConsumerTotals run() {
        try {
            return loop();
        } finally {
            finished.countDown();
        }
    }

    private ConsumerTotals loop() {
        createGroupIfMissing();
        readOwnPending();
        long startedAt = System.nanoTime();
        long lastNewAt = startedAt;
        long nextClaimAt = startedAt;
        long nextProgressAt = startedAt + options.progress().toNanos();
        long readAtLastProgress = 0;
        while (!stopped && !limitReached(startedAt)) {
            long now = System.nanoTime();
            if (now >= nextClaimAt) {
                claimAbandoned();
                nextClaimAt = now + Math.max(Duration.ofSeconds(1).toNanos(), options.claimIdle().toNanos() / 2);
            }
            List<StreamMessage<String, String>> batch = redis.xreadgroup(me,
                    XReadArgs.Builder.count(options.count()).block(options.block()),
                    XReadArgs.StreamOffset.lastConsumed(options.stream()));
            now = System.nanoTime();
            if (!batch.isEmpty()) {
                lastNewAt = now;
                process(batch);
            }
            if (!options.progress().isZero() && now >= nextProgressAt) {
                double seconds = (now - nextProgressAt + options.progress().toNanos()) / 1e9;
                progress("progress", (read - readAtLastProgress) / seconds);
                readAtLastProgress = read;
                nextProgressAt = now + options.progress().toNanos();
            }
            if (!options.untilIdle().isZero() && now - lastNewAt >= options.untilIdle().toNanos()) {
                break;
            }
        }
        progress("done", -1);
        return totals();
    }

    /** Asks the loop to stop after its current XREADGROUP (at most --block later) and waits for it. */
    public void stop() {
        stopped = true;
        try {
            finished.await(options.block().toMillis() + 10_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public ConsumerTotals totals() {
        return new ConsumerTotals(read, acked, claimed, failed, deadLettered, gone, invalid, lastId);
    }

    private boolean limitReached(long startedAt) {
        return (options.maxEntries() > 0 && read >= options.maxEntries())
                || (!options.duration().isZero() && System.nanoTime() - startedAt >= options.duration().toNanos());
    }

    private void createGroupIfMissing() {
        try {
            redis.xgroupCreate(XReadArgs.StreamOffset.from(options.stream(), options.from()), options.group(),
                    XGroupCreateArgs.Builder.mkstream());
            progressOut.printf("created group %s on %s from %s%n", options.group(), options.stream(),
                    options.from().equals("0") ? "the oldest entry still in the stream" : "new entries only");
        } catch (RedisBusyException exists) {
            // BUSYGROUP: the group exists and keeps its position; --from applies to new groups only.
        }
    }

    /** Entries delivered to this consumer name earlier and never acknowledged: read from id 0, not '>'. */
    private void readOwnPending() {
        String after = START;
        while (!stopped) {
            List<StreamMessage<String, String>> batch = redis.xreadgroup(me, XReadArgs.Builder.count(options.count()),
                    XReadArgs.StreamOffset.from(options.stream(), after));
            if (batch.isEmpty()) {
                return;
            }
            process(batch);
            after = batch.get(batch.size() - 1).getId();
        }
    }

    /** Takes over entries other consumers of the group left unacknowledged for --claim-idle. */
    private void claimAbandoned() {
        String cursor = START;
        do {
            ClaimedMessages<String, String> page = redis.xautoclaim(options.stream(),
                    XAutoClaimArgs.Builder.xautoclaim(me, options.claimIdle(), cursor).count(options.count()));
            claimed += page.getMessages().size();
            process(page.getMessages());
            cursor = page.getId();
        } while (!stopped && !START.equals(cursor));
    }

    private void process(List<StreamMessage<String, String>> batch) {
        List<String> done = new ArrayList<>(batch.size());
        for (StreamMessage<String, String> entry : batch) {
            if (entry.getBody() == null || entry.getBody().isEmpty()) {
                // Trimmed while pending (Redis 6.2 answers such an id without fields).
                gone++;
                done.add(entry.getId());
                continue;
            }
            read++;
            if ("0".equals(EntryValidity.of(entry.getBody()))) {
                invalid++;
            }
            try {
                handler.handle(entry);
                done.add(entry.getId());
            } catch (Exception e) {
                failed++;
                if (giveUp(entry, e)) {
                    done.add(entry.getId());
                }
            }
            lastId = entry.getId();
        }
        if (!done.isEmpty()) {
            acked += redis.xack(options.stream(), options.group(), done.toArray(String[]::new));
        }
    }

    /**
     * After the handler threw on {@code entry}: true once the group delivered it --max-deliveries
     * times and it is in the dead-letter stream (to be acknowledged), else false (tried again after
     * --claim-idle).
     */
    private boolean giveUp(StreamMessage<String, String> entry, Exception error) {
        long deliveries = deadLetters.deliveries(entry.getId());
        if (!deadLetters.exhausted(deliveries)) {
            progressOut.printf("entry %s not handled (delivery %d of at most %d), left unacknowledged: %s%n",
                    entry.getId(), deliveries, options.maxDeliveries(), error);
            return false;
        }
        deadLetters.add(entry, deliveries, error);
        deadLettered++;
        progressOut.printf("entry %s not handled after %d deliveries: moved to %s and acknowledged: %s%n",
                entry.getId(), deliveries, options.deadLetterStream(), error);
        return true;
    }

    private void progress(String what, double ratePerSecond) {
        progressOut.printf("%s: group=%s consumer=%s read=%d invalid=%d acked=%d claimed=%d failed=%d dead-lettered=%d"
                + " gone=%d%s last=%s%s%n", what, options.group(), options.consumer(), read, invalid, acked, claimed,
                failed, deadLettered, gone, ratePerSecond >= 0 ? String.format(" rate=%.0f/s", ratePerSecond) : "",
                lastId.isEmpty() ? "-" : lastId, groupLag());
    }

    /** The group's lag and pending count as Redis reports them (lag from Redis 7.0 on). */
    private String groupLag() {
        try {
            for (Object group : redis.xinfoGroups(options.stream())) {
                List<?> fields = (List<?>) group;
                String name = null;
                Object lag = null;
                Object pending = null;
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    switch (String.valueOf(fields.get(i))) {
                        case "name" -> name = String.valueOf(fields.get(i + 1));
                        case "lag" -> lag = fields.get(i + 1);
                        case "pending" -> pending = fields.get(i + 1);
                        default -> {
                        }
                    }
                }
                if (options.group().equals(name)) {
                    return " group-lag=" + (lag == null ? "n/a" : lag) + " group-pending=" + pending;
                }
            }
        } catch (RuntimeException e) {
            return " group-lag=?";
        }
        return "";
    }
}
