package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.Consumer;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.payload.TelemetryLayout;

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
 * When the servers partition the stream (TELEMETRY.md, "Partitions"), all of this happens on every
 * partition's stream: one group across them, read in one XREADGROUP, each entry acknowledged on its own.
 */
public final class TelemetryConsumer {

    private static final String START = "0-0";

    private final RedisClusterCommands<String, String> redis;
    /** A Redis Cluster: one XREADGROUP may name keys of one slot only, so each partition is read apart. */
    private final boolean cluster;
    private int waitTurn;
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
    /** The streams read: the one stream, or every partition's; known once {@link #run()} started. */
    private List<String> streams = List.of();

    public TelemetryConsumer(RedisClusterCommands<String, String> redis, ConsumerOptions options, EntryHandler handler,
                             PrintStream progressOut) {
        this(redis, false, options, handler, progressOut);
    }

    /** As above; {@code cluster}: {@code redis} is a Redis Cluster connection. */
    public TelemetryConsumer(RedisClusterCommands<String, String> redis, boolean cluster, ConsumerOptions options,
                             EntryHandler handler, PrintStream progressOut) {
        this.redis = redis;
        this.cluster = cluster;
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
        streams = layout().streams();
        createGroupIfMissing();
        for (String stream : streams) {
            readOwnPending(stream);
        }
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
            List<StreamMessage<String, String>> batch = readNew();
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

    /** The partitions: as --partitions says, else as the servers wrote them in the layout key (absent: 1). */
    private TelemetryLayout layout() {
        int partitions = options.partitions() > 0 ? options.partitions()
                : TelemetryLayout.parsePartitions(redis.get(TelemetryLayout.partitionsKey(options.stream())));
        return new TelemetryLayout(options.stream(), partitions);
    }

    /**
     * New entries: one XREADGROUP over every stream, waiting up to --block. On a cluster with
     * several partitions each is read on its own without waiting, and only a round that found
     * nothing waits, on one partition in turn, for --block shared among them.
     */
    private List<StreamMessage<String, String>> readNew() {
        if (!cluster || streams.size() == 1) {
            return redis.xreadgroup(me, XReadArgs.Builder.count(options.count()).block(options.block()), newEntries());
        }
        List<StreamMessage<String, String>> batch = new ArrayList<>();
        for (String stream : streams) {
            batch.addAll(redis.xreadgroup(me, XReadArgs.Builder.count(options.count()),
                    XReadArgs.StreamOffset.lastConsumed(stream)));
        }
        if (batch.isEmpty()) {
            String stream = streams.get(waitTurn++ % streams.size());
            Duration wait = options.block().dividedBy(streams.size());
            batch.addAll(redis.xreadgroup(me, XReadArgs.Builder.count(options.count())
                    .block(wait.isZero() ? Duration.ofMillis(1) : wait), XReadArgs.StreamOffset.lastConsumed(stream)));
        }
        return batch;
    }

    /** '>' on every stream: Redis answers with up to --count entries of each stream that has some. */
    @SuppressWarnings("unchecked")
    private XReadArgs.StreamOffset<String>[] newEntries() {
        return streams.stream().map(XReadArgs.StreamOffset::lastConsumed).toArray(XReadArgs.StreamOffset[]::new);
    }

    /** The group on every stream; one that exists keeps its position (--from applies to new groups only). */
    private void createGroupIfMissing() {
        List<String> created = new ArrayList<>();
        for (String stream : streams) {
            try {
                redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, options.from()), options.group(),
                        XGroupCreateArgs.Builder.mkstream());
                created.add(stream);
            } catch (RedisBusyException exists) {
                // BUSYGROUP: the group exists on this stream.
            }
        }
        if (!created.isEmpty()) {
            progressOut.printf("created group %s on %s from %s%n", options.group(),
                    streams.size() == 1 ? created.get(0)
                            : created.size() + " of " + streams.size() + " partition streams " + streams.get(0) + ".."
                                    + streams.get(streams.size() - 1),
                    options.from().equals("0") ? "the oldest entry still in the stream" : "new entries only");
        }
    }

    /** Entries delivered to this consumer name earlier and never acknowledged: read from id 0, not '>'. */
    private void readOwnPending(String stream) {
        String after = START;
        while (!stopped) {
            List<StreamMessage<String, String>> batch = redis.xreadgroup(me, XReadArgs.Builder.count(options.count()),
                    XReadArgs.StreamOffset.from(stream, after));
            if (batch.isEmpty()) {
                return;
            }
            process(batch);
            after = batch.get(batch.size() - 1).getId();
        }
    }

    /** Takes over entries other consumers of the group left unacknowledged for --claim-idle, on every stream. */
    private void claimAbandoned() {
        for (String stream : streams) {
            String cursor = START;
            do {
                ClaimedMessages<String, String> page = redis.xautoclaim(stream,
                        XAutoClaimArgs.Builder.xautoclaim(me, options.claimIdle(), cursor).count(options.count()));
                claimed += page.getMessages().size();
                process(page.getMessages());
                cursor = page.getId();
            } while (!stopped && !START.equals(cursor));
        }
    }

    private void process(List<StreamMessage<String, String>> batch) {
        // An entry is acknowledged on the stream it came from: ids are unique within a stream only.
        Map<String, List<String>> done = new LinkedHashMap<>();
        for (StreamMessage<String, String> entry : batch) {
            List<String> doneHere = done.computeIfAbsent(entry.getStream(), stream -> new ArrayList<>());
            if (entry.getBody() == null || entry.getBody().isEmpty()) {
                // Trimmed while pending (Redis 6.2 answers such an id without fields).
                gone++;
                doneHere.add(entry.getId());
                continue;
            }
            read++;
            if ("0".equals(EntryValidity.of(entry.getBody()))) {
                invalid++;
            }
            try {
                handler.handle(entry);
                doneHere.add(entry.getId());
            } catch (Exception e) {
                failed++;
                if (giveUp(entry, e)) {
                    doneHere.add(entry.getId());
                }
            }
            lastId = entry.getId();
        }
        done.forEach((stream, ids) -> {
            if (!ids.isEmpty()) {
                acked += redis.xack(stream, options.group(), ids.toArray(String[]::new));
            }
        });
    }

    /**
     * After the handler threw on {@code entry}: true once the group delivered it --max-deliveries
     * times and it is in the dead-letter stream (to be acknowledged), else false (tried again after
     * --claim-idle).
     */
    private boolean giveUp(StreamMessage<String, String> entry, Exception error) {
        long deliveries = deadLetters.deliveries(entry.getStream(), entry.getId());
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

    /** The group's lag and pending count as Redis reports them (lag from Redis 7.0 on), summed over the streams. */
    private String groupLag() {
        long lagSum = 0;
        long pendingSum = 0;
        boolean lagKnown = true;
        boolean found = false;
        try {
            for (String stream : streams) {
                for (Object group : redis.xinfoGroups(stream)) {
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
                        found = true;
                        lagKnown &= lag instanceof Long;
                        lagSum += lag instanceof Long n ? n : 0;
                        pendingSum += pending instanceof Long n ? n : 0;
                    }
                }
            }
        } catch (RuntimeException e) {
            return " group-lag=?";
        }
        return found ? " group-lag=" + (lagKnown ? Long.toString(lagSum) : "n/a") + " group-pending=" + pendingSum : "";
    }
}
