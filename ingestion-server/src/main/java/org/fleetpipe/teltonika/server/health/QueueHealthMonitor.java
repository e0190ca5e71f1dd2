package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToDoubleFunction;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes, on a ticker, the size, oldest age and stuck count of each queue kind (pending and
 * in-flight commands, dead letters of frames and of commands) with a healthy / degraded /
 * unhealthy status, served by the API and exported as metrics. Reads only, with bounded work.
 */
public final class QueueHealthMonitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QueueHealthMonitor.class);
    private static final int MAX_DEVICES = 10_000;
    static final List<String> QUEUES = List.of("pending-commands", "inflight-commands", "dlq-frames", "dlq-commands",
            StreamHealth.QUEUE);

    /** The last computed state. */
    public record Report(HealthStatus status, List<QueueHealth> queues, long computedAt) {
    }

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final OpsSettings settings;
    private final Duration timeout;
    private final StreamHealth stream;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;
    private volatile Report computed = new Report(HealthStatus.HEALTHY, List.of(), 0);

    /** {@code stream} is assessed at every read from state the retention pass keeps; the others on the ticker. */
    public QueueHealthMonitor(RedisAsyncCommands<String, String> redis, RedisKeys keys, OpsSettings settings,
                              Duration timeout, MeterRegistry meters, StreamHealth stream, PeriodicJobs jobs) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.timeout = timeout;
        this.stream = stream;
        this.jobs = jobs;
        for (String queue : QUEUES) {
            gauge(meters, "teltonika.queue.size", queue, QueueHealth::size);
            gauge(meters, "teltonika.queue.oldest.age.seconds", queue, q -> q.oldestAgeMs() / 1000.0);
            gauge(meters, "teltonika.queue.stuck", queue, QueueHealth::stuck);
            gauge(meters, "teltonika.queue.status", queue, q -> q.status().ordinal());
        }
        Gauge.builder("teltonika.queue.health", this, m -> m.last().status().ordinal())
                .description("worst queue status: 0 healthy, 1 degraded, 2 unhealthy").register(meters);
    }

    private void gauge(MeterRegistry meters, String name, String queue, ToDoubleFunction<QueueHealth> value) {
        Gauge.builder(name, this, m -> m.last().queues().stream().filter(q -> q.queue().equals(queue))
                .mapToDouble(value).findFirst().orElse(0)).tag("queue", queue).register(meters);
    }

    public void start() {
        job = jobs.start("queue-health", Duration.ZERO, settings.healthInterval(), this::tick);
    }

    /** The queues the ticker computed last, with the telemetry stream as of now. */
    public Report last() {
        Report report = computed;
        QueueHealth now = stream.assess(System.currentTimeMillis());
        List<QueueHealth> queues = new ArrayList<>(report.queues());
        queues.add(now);
        return new Report(HealthStatus.worst(report.status(), now.status()), List.copyOf(queues),
                report.computedAt());
    }

    private void tick() {
        try {
            computed = compute();
        } catch (RuntimeException e) {
            LOG.warn("queue health could not be computed: {}", e.toString());
        }
    }

    /** Computes the queues kept in Redis now (on the caller's thread, which may block: never an event loop). */
    public Report compute() {
        long now = System.currentTimeMillis();
        long stuckBefore = now - settings.stuckAfter().toMillis();
        List<QueueHealth> queues = List.of(pending(now, stuckBefore), inFlight(now, stuckBefore),
                deadLetters("dlq-frames", keys.frameDeadLetters(), now),
                deadLetters("dlq-commands", keys.commandDeadLetters(), now));
        HealthStatus overall = HealthStatus.HEALTHY;
        for (QueueHealth q : queues) {
            overall = HealthStatus.worst(overall, q.status());
        }
        return new Report(overall, queues, now);
    }

    private QueueHealth pending(long now, long stuckBefore) {
        List<ScoredValue<String>> devices = await(redis.zrangeWithScores(keys.commandsQueued(), 0, MAX_DEVICES - 1));
        List<CompletableFuture<Long>> lengths = new ArrayList<>();
        for (ScoredValue<String> d : devices) {
            lengths.add(redis.llen(keys.commandQueue(d.getValue())).toCompletableFuture());
        }
        long size = 0;
        for (CompletableFuture<Long> l : lengths) {
            size += await(l);
        }
        long oldest = devices.isEmpty() ? 0 : now - (long) devices.get(0).getScore();
        long stuck = devices.stream().filter(d -> d.getScore() < stuckBefore).count();
        return new QueueHealth("pending-commands", size, oldest, stuck,
                status(size, stuck, settings.commandsDegradedSize(), settings.commandsUnhealthySize()));
    }

    private QueueHealth inFlight(long now, long stuckBefore) {
        long size = 0;
        long oldestSentAt = now;
        long stuck = 0;
        for (String instance : await(redis.smembers(keys.commandsInFlightInstances()))) {
            Map<String, String> entries = await(redis.hgetall(keys.commandsInFlight(instance)));
            List<CompletableFuture<String>> sentAt = new ArrayList<>();
            for (String entry : entries.values()) {
                // In-flight entries are "id:attempt".
                String id = entry.contains(":") ? entry.substring(0, entry.indexOf(':')) : entry;
                sentAt.add(redis.hget(keys.command(id), "sent_at").toCompletableFuture());
            }
            for (CompletableFuture<String> s : sentAt) {
                size++;
                String at = await(s);
                long sent = at == null ? now : Long.parseLong(at);
                oldestSentAt = Math.min(oldestSentAt, sent);
                if (sent < stuckBefore) {
                    stuck++;
                }
            }
        }
        return new QueueHealth("inflight-commands", size, now - oldestSentAt, stuck,
                status(size, stuck, settings.commandsDegradedSize(), settings.commandsUnhealthySize()));
    }

    private QueueHealth deadLetters(String name, String key, long now) {
        long size = await(redis.zcard(key));
        List<ScoredValue<String>> oldest = await(redis.zrangeWithScores(key, 0, 0));
        long age = oldest.isEmpty() ? 0 : now - (long) oldest.get(0).getScore();
        return new QueueHealth(name, size, age, 0,
                status(size, 0, settings.deadLettersDegradedSize(), settings.deadLettersUnhealthySize()));
    }

    private HealthStatus status(long size, long stuck, long degradedSize, long unhealthySize) {
        if (size >= unhealthySize || stuck >= settings.unhealthyStuck()) {
            return HealthStatus.UNHEALTHY;
        }
        return size >= degradedSize || stuck > 0 ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
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
