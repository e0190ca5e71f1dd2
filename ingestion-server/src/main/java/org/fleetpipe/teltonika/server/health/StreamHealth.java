package org.fleetpipe.teltonika.server.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.server.stream.GroupPosition;
import org.fleetpipe.teltonika.server.stream.StreamRetentionSettings;
import org.fleetpipe.teltonika.server.stream.StreamSnapshot;
import org.fleetpipe.teltonika.server.stream.TelemetryBackpressure;

/**
 * The telemetry stream as a queue of queue health: healthy while consumers keep up; degraded when
 * it fills towards the cap or a group falls behind in time; unhealthy when packets are no longer
 * acknowledged or a group is far behind. Without consumer groups it is always healthy.
 */
public final class StreamHealth {

    public static final String QUEUE = "telemetry-stream";

    /** A pass may fail this long (and three intervals) before the figures count as stale. */
    private static final long STALE_AFTER_MS = 10_000;

    private final Supplier<StreamSnapshot> stream;
    private final LongSupplier lastSuccessAt;
    private final StreamRetentionSettings settings;
    private final TelemetryBackpressure backpressure;

    /** {@code stream}: the last successful retention pass's view; {@code lastSuccessAt}: when that was. */
    public StreamHealth(Supplier<StreamSnapshot> stream, LongSupplier lastSuccessAt, StreamRetentionSettings settings,
                        TelemetryBackpressure backpressure) {
        this.stream = stream;
        this.lastSuccessAt = lastSuccessAt;
        this.settings = settings;
        this.backpressure = backpressure;
    }

    /** From the last retention pass; asks Redis nothing. */
    public QueueHealth assess(long now) {
        StreamSnapshot stream = this.stream.get();
        long oldest = stream.oldestUndeliveredAgeMs(now);
        QueueStatusRules.Verdict verdict = status(stream, oldest);
        HealthStatus status = verdict.status();
        String reason = verdict.reason();
        long sinceSuccess = Math.max(0, now - lastSuccessAt.getAsLong());
        // Failing passes trim nothing and see nothing: neither the cap nor the groups' lag is known.
        boolean failing = sinceSuccess > Math.max(STALE_AFTER_MS, 3 * settings.interval().toMillis());
        if (failing && status == HealthStatus.HEALTHY) {
            status = HealthStatus.DEGRADED;
            reason = "retention pass failing for " + sinceSuccess + " ms";
        }
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("retention_failing", failing);
        detail.put("retention_last_success_age_ms", sinceSuccess);
        detail.put("max_unread", settings.maxUnread());
        detail.put("redis_memory_fraction", Math.round(stream.memoryFraction() * 1000) / 1000.0);
        detail.put("retention", settings.mode().label());
        detail.put("backpressure", backpressure.engaged());
        detail.put("held_packets", backpressure.held());
        List<Map<String, Object>> groups = new ArrayList<>();
        for (GroupPosition g : stream.groups()) {
            Map<String, Object> group = new LinkedHashMap<>();
            group.put("group", g.name());
            group.put("consumers", g.consumers());
            group.put("lag", g.lag(stream));
            group.put("lag_exact", g.lagExact());
            group.put("oldest_undelivered_age_ms", g.oldestUndeliveredAgeMs(now));
            group.put("pending", g.pending());
            group.put("oldest_pending_age_ms", g.oldestPendingAgeMs(now));
            group.put("last_delivered_id", g.lastDeliveredId());
            groups.add(group);
        }
        detail.put("groups", groups);
        return new QueueHealth(QUEUE, stream.length(), oldest, 0, 0, 0, status, reason, detail);
    }

    private QueueStatusRules.Verdict status(StreamSnapshot stream, long oldestUndeliveredMs) {
        if (!stream.hasGroups()) {
            return new QueueStatusRules.Verdict(HealthStatus.HEALTHY, "no consumer group");
        }
        if (backpressure.engaged()) {
            return new QueueStatusRules.Verdict(HealthStatus.UNHEALTHY, "back-pressure holds packets");
        }
        if (oldestUndeliveredMs >= settings.lagUnhealthyAge().toMillis()) {
            return new QueueStatusRules.Verdict(HealthStatus.UNHEALTHY, "oldest undelivered " + oldestUndeliveredMs
                    + " ms >= " + settings.lagUnhealthyAge().toMillis() + " ms");
        }
        if (settings.capped() && settings.measure(stream) >= settings.maxUnread() * settings.degradedFraction()) {
            return new QueueStatusRules.Verdict(HealthStatus.DEGRADED, settings.measure(stream) + " unread of cap "
                    + settings.maxUnread());
        }
        if (settings.maxRedisMemory() > 0 && stream.maxMemory() > 0
                && stream.memoryFraction() >= settings.maxRedisMemory() * settings.degradedFraction()) {
            return new QueueStatusRules.Verdict(HealthStatus.DEGRADED, String.format("Redis memory %.0f %% of maxmemory",
                    100 * stream.memoryFraction()));
        }
        if (oldestUndeliveredMs >= settings.lagDegradedAge().toMillis()) {
            return new QueueStatusRules.Verdict(HealthStatus.DEGRADED, "oldest undelivered " + oldestUndeliveredMs
                    + " ms >= " + settings.lagDegradedAge().toMillis() + " ms");
        }
        return new QueueStatusRules.Verdict(HealthStatus.HEALTHY, "consumers keep up");
    }

    /** Why the server stops acknowledging, for readiness; null while it acknowledges. */
    public String notAcknowledgingReason() {
        if (!backpressure.engaged()) {
            return null;
        }
        StreamSnapshot now = stream.get();
        return String.format("telemetry stream full (%d entries the consumer groups still need, cap %d; Redis memory "
                + "%.0f %% of maxmemory): consumers are behind, packets are not acknowledged", settings.measure(now),
                settings.maxUnread(), 100 * now.memoryFraction());
    }
}
