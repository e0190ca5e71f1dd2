package org.fleetpipe.teltonika.server.stream;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trims the telemetry stream once per interval, off the packets' path, to what its consumer groups
 * still need (trim-stream.lua), keeps what it saw for metrics and health, and tells the
 * back-pressure gate. Every instance runs it; the trim is idempotent, so replicas need no leader.
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

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final StreamRetentionSettings settings;
    private final TelemetryBackpressure backpressure;
    private final IngestionMetrics metrics;
    private final Duration timeout;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;
    private final AtomicLong trimmedTotal = new AtomicLong();
    private final List<Consumer<StreamSnapshot>> listeners = new CopyOnWriteArrayList<>();
    private volatile StreamSnapshot last = StreamSnapshot.NONE;
    private volatile long lastSuccessAt = System.currentTimeMillis();
    private long warnedAt;

    public StreamRetention(RedisAsyncCommands<String, String> redis, RedisKeys keys, StreamRetentionSettings settings,
                           TelemetryBackpressure backpressure, IngestionMetrics metrics, Duration timeout,
                           PeriodicJobs jobs) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
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
            StreamSnapshot snapshot = pass();
            last = snapshot;
            lastSuccessAt = snapshot.takenAt();
            backpressure.update(snapshot);
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

    /**
     * One pass: trim (in calls of at most {@link #TRIM_LIMIT} entries), then measure. Blocks the
     * calling thread (never an event loop). The snapshot is the last call's, its {@code trimmed} the
     * pass's total.
     */
    public StreamSnapshot pass() {
        long trimmed = 0;
        StreamSnapshot snapshot;
        int calls = 0;
        do {
            List<Object> raw = Blocking.await(StreamScripts.TRIM_STREAM.<List<Object>>call(redis, ScriptOutputType.MULTI,
                    new String[] {keys.telemetry()}, Long.toString(settings.maxLenWithoutGroups()),
                    settings.mode().label(), Integer.toString(TRIM_LIMIT),
                    Long.toString(settings.minAge().toMillis())), timeout);
            snapshot = parse(raw, System.currentTimeMillis());
            trimmed += snapshot.trimmed();
            // "~" frees whole nodes of ~100 entries, so a call that hit the limit removed a little less.
        } while (snapshot.trimmed() >= TRIM_LIMIT / 2 && ++calls < MAX_CALLS_PER_PASS);
        trimmedTotal.addAndGet(trimmed);
        return new StreamSnapshot(snapshot.length(), trimmed, snapshot.firstId(), snapshot.lastId(),
                snapshot.usedMemory(), snapshot.maxMemory(), snapshot.groups(), snapshot.takenAt());
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
