package org.fleetpipe.teltonika.server.stream;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trims the telemetry stream once per interval, off the packets' path, to what its consumer groups
 * still need (trim-stream.lua), keeps what it saw for metrics and health, and tells the
 * back-pressure gate. Every instance runs it; the trim is idempotent, so replicas need no leader.
 * With partitions, each partition's stream is trimmed and measured on its own (its share of the
 * caps), and health and the summed gauges see them {@link StreamSnapshot#combined combined}.
 */
public final class StreamRetention implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamRetention.class);
    /**
     * Entries one script call may remove: freeing them blocks Redis for about 25 ns each (measured:
     * 5 ms for 200,000 on Redis 7), so one call stays near 1 ms; a pass calls again while a call
     * removed about that many, so other clients' commands run in between.
     */
    static final int TRIM_LIMIT = 50_000;
    /** Calls per pass at most: 1,000,000 entries a second, far above any sustained write rate here. */
    private static final int MAX_CALLS_PER_PASS = 20;
    private static final int GROUP_FIELDS = 7;
    private static final int HEADER_FIELDS = 7;
    private static final long WARN_EVERY_MS = 60_000;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final IngestKeys keys;
    private final StreamRetentionSettings settings;
    private final StreamRetentionSettings partitionSettings;
    private final TelemetryBackpressure backpressure;
    private final IngestionMetrics metrics;
    private final Duration timeout;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;
    private final AtomicLong trimmedTotal = new AtomicLong();
    private final List<Consumer<StreamSnapshot>> listeners = new CopyOnWriteArrayList<>();
    private volatile StreamSnapshot last = StreamSnapshot.NONE;
    private volatile List<StreamSnapshot> lastPartitions = List.of();
    private volatile long lastSuccessAt = System.currentTimeMillis();
    private long warnedAt;

    public StreamRetention(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys,
                           StreamRetentionSettings settings, TelemetryBackpressure backpressure,
                           IngestionMetrics metrics, Duration timeout, PeriodicJobs jobs) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.partitionSettings = settings.perPartition(keys.partitions());
        this.backpressure = backpressure;
        this.metrics = metrics;
        this.timeout = timeout;
        this.jobs = jobs;
    }

    public void start() {
        job = jobs.start("stream-retention", Duration.ZERO, settings.interval(), this::tick);
    }

    private void tick() {
        try {
            List<StreamSnapshot> partitions = passes();
            StreamSnapshot snapshot = StreamSnapshot.combined(partitions);
            lastPartitions = partitions;
            last = snapshot;
            lastSuccessAt = snapshot.takenAt();
            backpressure.update(partitions, snapshot);
            for (Consumer<StreamSnapshot> listener : listeners) {
                listener.accept(snapshot);
            }
        } catch (RuntimeException | Error e) {
            // Caught wide: anything escaping would end the scheduled task, and held packets would
            // then be neither released nor expired.
            metrics.redisError("stream-retention");
            long now = System.currentTimeMillis();
            if (now - warnedAt >= WARN_EVERY_MS) {
                warnedAt = now;
                LOG.warn("telemetry stream retention pass failed (retried every {}; logged once a minute): {}",
                        settings.interval(), e.toString());
            }
            // The gate keeps its state: with Redis failing, no packet is acknowledged anyway.
            backpressure.expireHeld();
        }
    }

    /** One pass over every partition, combined (what {@link #last} then shows). Blocks the calling thread. */
    public StreamSnapshot pass() {
        return StreamSnapshot.combined(passes());
    }

    /**
     * One pass over each partition's stream: trim (in calls of at most {@link #TRIM_LIMIT} entries),
     * then measure. The first call goes to every partition at once, further ones only to partitions
     * that had more to trim. Blocks the calling thread (never an event loop). Each snapshot is its
     * partition's last call's, its {@code trimmed} the pass's total there.
     */
    List<StreamSnapshot> passes() {
        List<String> streams = keys.telemetryStreams();
        int n = streams.size();
        StreamSnapshot[] snapshots = new StreamSnapshot[n];
        long[] trimmed = new long[n];
        List<Integer> due = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            due.add(p);
        }
        for (int calls = 0; !due.isEmpty() && calls < MAX_CALLS_PER_PASS; calls++) {
            List<CompletableFuture<List<Object>>> answers = new ArrayList<>(due.size());
            for (int p : due) {
                answers.add(trim(streams.get(p)).toCompletableFuture());
            }
            List<Integer> again = new ArrayList<>();
            for (int i = 0; i < due.size(); i++) {
                int p = due.get(i);
                StreamSnapshot snapshot = parse(Blocking.await(answers.get(i), timeout), System.currentTimeMillis());
                snapshots[p] = snapshot;
                trimmed[p] += snapshot.trimmed();
                // "~" frees whole nodes of ~100 entries, so a call that hit the limit removed a little less.
                if (snapshot.trimmed() >= TRIM_LIMIT / 2) {
                    again.add(p);
                }
            }
            due = again;
        }
        List<StreamSnapshot> partitions = new ArrayList<>(n);
        long total = 0;
        for (int p = 0; p < n; p++) {
            StreamSnapshot s = snapshots[p];
            total += trimmed[p];
            partitions.add(new StreamSnapshot(s.length(), trimmed[p], s.firstId(), s.lastId(), s.usedMemory(),
                    s.maxMemory(), s.groups(), s.takenAt()));
        }
        trimmedTotal.addAndGet(total);
        return List.copyOf(partitions);
    }

    private CompletionStage<List<Object>> trim(String stream) {
        return StreamScripts.TRIM_STREAM.call(redis, ScriptOutputType.MULTI, new String[] {stream},
                Long.toString(partitionSettings.maxLenWithoutGroups()), settings.mode().label(),
                Integer.toString(TRIM_LIMIT), Long.toString(settings.minAge().toMillis()));
    }

    /** trim-stream.lua's answer (layout in the script). */
    static StreamSnapshot parse(List<Object> raw, long now) {
        int groupCount = (int) number(raw.get(2));
        List<GroupPosition> groups = new ArrayList<>(groupCount);
        for (int g = 0, at = HEADER_FIELDS; g < groupCount; g++, at += GROUP_FIELDS) {
            groups.add(new GroupPosition(text(raw.get(at)), number(raw.get(at + 1)), number(raw.get(at + 2)),
                    text(raw.get(at + 3)), text(raw.get(at + 4)), number(raw.get(at + 5)), text(raw.get(at + 6))));
        }
        return new StreamSnapshot(number(raw.get(0)), number(raw.get(1)), text(raw.get(3)), text(raw.get(4)),
                number(raw.get(5)), number(raw.get(6)), List.copyOf(groups), now);
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }

    private static String text(Object value) {
        return value == null ? "" : String.valueOf(value);
    }

    /** Called on the retention thread after each successful pass. */
    public void onPass(Consumer<StreamSnapshot> listener) {
        listeners.add(listener);
    }

    /** What the last pass saw ({@link StreamSnapshot#NONE} before the first). */
    public StreamSnapshot last() {
        return last;
    }

    /** What the last pass saw of each partition, partition 0 first (empty before the first). */
    public List<StreamSnapshot> lastPartitions() {
        return lastPartitions;
    }

    /** When a pass last succeeded (ms since the epoch; the start until the first one did). */
    public long lastSuccessAt() {
        return lastSuccessAt;
    }

    /** Entries removed by this instance's passes since start. */
    public long trimmedTotal() {
        return trimmedTotal.get();
    }

    public StreamRetentionSettings settings() {
        return settings;
    }

    /** Stops the passes and waits for one under way, so nothing touches the held packets after this. */
    @Override
    public void close() {
        if (job != null) {
            job.stopAndWait(timeout.plusSeconds(1));
        }
    }
}
