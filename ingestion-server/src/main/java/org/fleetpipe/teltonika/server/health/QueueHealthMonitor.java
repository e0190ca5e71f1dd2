package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes, on a ticker, the health of each queue kind (pending and in-flight commands, dead
 * letters of frames and of commands; the telemetry stream from the retention pass's state): size,
 * oldest and mean age, rate, stuck count and a healthy / degraded / unhealthy status with its
 * reason. Served by the API, exported as metrics, written to {@code health:queues} by one instance
 * per period, and each status change logged once. Reads only, with bounded work.
 */
public final class QueueHealthMonitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QueueHealthMonitor.class);
    static final List<String> QUEUES = List.of(PendingCommands.QUEUE, InFlightCommands.QUEUE, "dlq-frames",
            "dlq-commands", StreamHealth.QUEUE);

    /** The last computed state. */
    public record Report(HealthStatus status, List<QueueHealth> queues, long computedAt) {

        /** The worst status of {@code queues}. */
        static Report of(List<QueueHealth> queues, long computedAt) {
            HealthStatus overall = HealthStatus.HEALTHY;
            for (QueueHealth q : queues) {
                overall = HealthStatus.worst(overall, q.status());
            }
            return new Report(overall, List.copyOf(queues), computedAt);
        }
    }

    private final RedisKeys keys;
    private final CommandKeys commandKeys;
    private final QueueHealthSettings settings;
    private final StreamHealth stream;
    private final PeriodicJobs jobs;
    private final PendingCommands pending;
    private final InFlightCommands inFlight;
    private final DeadLetterRates deadLetters;
    private final OrphanWalk orphans;
    private final HealthPublisher publisher;
    private final StatusChanges changes = new StatusChanges();
    private PeriodicJobs.Job job;
    private volatile Report computed = new Report(HealthStatus.HEALTHY, List.of(), 0);

    /**
     * {@code stream} is assessed at every read from state the retention pass keeps; the others on the
     * ticker. {@code replyTimeout} is commands.reply-timeout; {@code instance} names the writer of
     * {@code health:queues}.
     */
    public QueueHealthMonitor(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys,
                              QueueHealthSettings settings, Duration replyTimeout, Supplier<String> instance,
                              Duration timeout, MeterRegistry meters, StreamHealth stream, PeriodicJobs jobs) {
        this.keys = keys;
        this.commandKeys = new CommandKeys(keys);
        this.settings = settings;
        this.stream = stream;
        this.jobs = jobs;
        QueueStatusRules rules = new QueueStatusRules(settings);
        this.pending = new PendingCommands(redis, keys, settings, rules, timeout);
        this.inFlight = new InFlightCommands(redis, keys, settings, rules, replyTimeout, timeout);
        this.deadLetters = new DeadLetterRates(redis, settings, rules, timeout);
        this.orphans = new OrphanWalk(redis, keys, timeout);
        this.publisher = new HealthPublisher(redis, keys, settings.interval(), instance, timeout);
        QueueHealthGauges.register(meters, QUEUES, this::last);
    }

    public void start() {
        job = jobs.start("queue-health", Duration.ZERO, settings.interval(), this::tick);
    }

    /** The queues the ticker computed last, with the telemetry stream as of now. */
    public Report last() {
        Report report = computed;
        List<QueueHealth> queues = new ArrayList<>(report.queues());
        queues.add(stream.assess(System.currentTimeMillis()));
        return new Report(HealthStatus.worst(report.status(), queues.get(queues.size() - 1).status()),
                List.copyOf(queues), report.computedAt());
    }

    private void tick() {
        try {
            pass();
        } catch (RuntimeException e) {
            LOG.warn("queue health could not be computed: {}", e.toString());
        }
    }

    /**
     * One pass: computes the queues kept in Redis, logs status changes, writes {@code health:queues}
     * unless another instance did within the period. True when this instance wrote it. On the
     * caller's thread, which may block: never an event loop.
     */
    boolean pass() {
        computed = compute();
        Report report = last();
        changes.observe(report.queues());
        return publisher.publish(report);
    }

    /** Computes the queues kept in Redis now (on the caller's thread, which may block: never an event loop). */
    public Report compute() {
        long now = System.currentTimeMillis();
        OrphanWalk.Count orphan = orphans.step();
        QueueHealth queued = withOrphans(pending.read(now), orphan.queued(), orphan);
        QueueHealth sent = withOrphans(inFlight.read(now), orphan.sent(), orphan);
        return Report.of(List.of(queued, sent, deadLetters.read("dlq-frames", RedisFrameDeadLetters.key(keys), now),
                deadLetters.read("dlq-commands", commandKeys.commandDeadLetters(), now)), now);
    }

    private static QueueHealth withOrphans(QueueHealth q, long count, OrphanWalk.Count walk) {
        Map<String, Object> detail = new LinkedHashMap<>(q.detail());
        detail.put("orphans", count);
        detail.put("orphan_walk_complete", walk.complete());
        return new QueueHealth(q.queue(), q.size(), q.oldestAgeMs(), q.avgAgeMs(), q.ratePerMinute(), q.stuck(),
                q.status(), q.reason(), detail);
    }

    @Override
    public void close() {
        if (job != null) {
            job.stop();
        }
    }
}
