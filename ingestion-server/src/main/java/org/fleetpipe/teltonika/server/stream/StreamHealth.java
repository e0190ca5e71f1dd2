package org.fleetpipe.teltonika.server.stream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.server.ops.HealthStatus;
import org.fleetpipe.teltonika.server.ops.QueueHealth;

/**
 * The telemetry stream as a queue of queue health: healthy while consumers keep up; degraded when
 * it fills towards the cap or a group falls behind in time; unhealthy when packets are no longer
 * acknowledged or a group is far behind. Without consumer groups it is always healthy.
 */
public final class StreamHealth {

    public static final String QUEUE = "telemetry-stream";

    private final Supplier<StreamSnapshot> stream;
    private final StreamRetentionSettings settings;
    private final TelemetryBackpressure backpressure;

    /** {@code stream}: the last retention pass's view. */
    public StreamHealth(Supplier<StreamSnapshot> stream, StreamRetentionSettings settings,
                        TelemetryBackpressure backpressure) {
        this.stream = stream;
        this.settings = settings;
        this.backpressure = backpressure;
    }

    /** From the last retention pass; asks Redis nothing. */
    public QueueHealth assess(long now) {
        StreamSnapshot stream = this.stream.get();
        long oldest = stream.oldestUndeliveredAgeMs(now);
        HealthStatus status = status(stream, oldest);
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("max_unread", settings.maxUnread());
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
        return new QueueHealth(QUEUE, stream.length(), oldest, 0, status, detail);
    }

    private HealthStatus status(StreamSnapshot stream, long oldestUndeliveredMs) {
        if (!stream.hasGroups()) {
            return HealthStatus.HEALTHY;
        }
        if (backpressure.engaged() || oldestUndeliveredMs >= settings.lagUnhealthyAge().toMillis()) {
            return HealthStatus.UNHEALTHY;
        }
        boolean filling = settings.capped() && stream.length() >= settings.maxUnread() * settings.degradedFraction();
        return filling || oldestUndeliveredMs >= settings.lagDegradedAge().toMillis()
                ? HealthStatus.DEGRADED : HealthStatus.HEALTHY;
    }

    /** Why the server stops acknowledging, for readiness; null while it acknowledges. */
    public String notAcknowledgingReason() {
        if (!backpressure.engaged()) {
            return null;
        }
        return "telemetry stream full (" + stream.get().length() + " entries, cap " + settings.maxUnread()
                + "): consumers are behind, packets are not acknowledged";
    }
}
