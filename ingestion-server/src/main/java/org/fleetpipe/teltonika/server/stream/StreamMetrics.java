package org.fleetpipe.teltonika.server.stream;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleBiFunction;

/**
 * The telemetry stream's meters: its length against the cap, each consumer group's lag and
 * pending entries, and the back-pressure. Per-group series carry the group's name (chosen by the
 * downstream teams, a handful); at most {@link #MAX_GROUPS}, the furthest behind, are shown.
 */
public final class StreamMetrics {

    static final int MAX_GROUPS = 50;

    private final List<MultiGauge> perGroup = new ArrayList<>();
    private final List<ToDoubleBiFunction<GroupPosition, StreamSnapshot>> values = new ArrayList<>();

    /**
     * Registers the meters; per-group series follow the retention pass's groups at each scrape. The
     * stream gauges are summed over the partitions; with more than one, each partition's length and
     * unread entries are shown too (tag {@code partition}).
     */
    public static void bind(MeterRegistry registry, StreamRetention retention, TelemetryBackpressure backpressure,
                            int partitions) {
        StreamMetrics m = new StreamMetrics();
        Gauge.builder("teltonika.telemetry.stream.length", retention, r -> r.last().length())
                .description("entries in the telemetry stream after the last retention pass").register(registry);
        Gauge.builder("teltonika.telemetry.stream.max.unread", retention, r -> r.settings().maxUnread())
                .description("entries the stream may hold for consumer groups before packets are not acknowledged "
                        + "(0 = no cap)").register(registry);
        Gauge.builder("teltonika.telemetry.stream.groups", retention, r -> r.last().groups().size())
                .description("consumer groups reading the telemetry stream").register(registry);
        Gauge.builder("teltonika.telemetry.retention.last.success.age.seconds", retention,
                        r -> Math.max(0, System.currentTimeMillis() - r.lastSuccessAt()) / 1000.0)
                .description("time since this instance's last successful retention pass (trim and measure)")
                .register(registry);
        Gauge.builder("teltonika.telemetry.redis.memory.fraction", retention, r -> r.last().memoryFraction())
                .description("Redis used_memory over maxmemory at the last retention pass; 0 without maxmemory")
                .register(registry);
        Gauge.builder("teltonika.telemetry.held.records", backpressure, TelemetryBackpressure::heldRecords)
                .description("records held unacknowledged now by back-pressure").register(registry);
        FunctionCounter.builder("teltonika.telemetry.stream.trimmed", retention, StreamRetention::trimmedTotal)
                .description("entries trimmed by this instance: read by every group, or past the cap when no group "
                        + "exists").register(registry);
        Gauge.builder("teltonika.telemetry.backpressure", backpressure, b -> b.engaged() ? 1 : 0)
                .description("1 while packets are not acknowledged because consumer groups are too far behind")
                .register(registry);
        FunctionCounter.builder("teltonika.telemetry.backpressure.engaged", backpressure,
                TelemetryBackpressure::engagedTotal).register(registry);
        Gauge.builder("teltonika.telemetry.held.packets", backpressure, TelemetryBackpressure::held)
                .description("packets held unacknowledged now, waiting for the back-pressure to lift")
                .register(registry);
        FunctionCounter.builder("teltonika.telemetry.held", backpressure, TelemetryBackpressure::heldTotal)
                .description("packets held by back-pressure").register(registry);
        FunctionCounter.builder("teltonika.telemetry.share.held", backpressure, TelemetryBackpressure::shareHeldTotal)
                .description("packets held because their network or device was over its fair share of the stream "
                        + "(past TELEMETRY_FAIR_SHARE_FROM); the others were acknowledged").register(registry);
        for (StreamShares.Hold reason : StreamShares.Hold.values()) {
            if (reason != StreamShares.Hold.NONE) {
                FunctionCounter.builder("teltonika.telemetry.held.reason", backpressure, b -> b.heldTotal(reason))
                        .tag("reason", reason.label())
                        .description("packets held, by why: network-share (its network over its fair share, the "
                                + "device one of several), device-share (the device most of its network's use), "
                                + "stream-full (the cap: everybody in the partition)").register(registry);
            }
        }
        Gauge.builder("teltonika.telemetry.share.network.level", backpressure,
                        b -> b.shares().networkLevel() == FairShares.UNLIMITED ? -1 : b.shares().networkLevel())
                .description("entries a source network may hold unread on this instance now (its fair share); "
                        + "-1 below TELEMETRY_FAIR_SHARE_FROM").register(registry);
        Gauge.builder("teltonika.telemetry.share.networks", backpressure, b -> b.shares().trackedNetworks())
                .description("source networks with entries unread, as this instance estimates").register(registry);
        Gauge.builder("teltonika.telemetry.held.bytes", backpressure, TelemetryBackpressure::heldBytes)
                .description("bytes of records held unacknowledged now (TELEMETRY_MAX_HELD_BYTES)").register(registry);
        FunctionCounter.builder("teltonika.telemetry.hold.expired", backpressure, TelemetryBackpressure::expiredTotal)
                .description("held packets given up (connection closed, no ACK): the stream stayed full")
                .register(registry);
        Gauge.builder("teltonika.telemetry.backpressure.partitions", backpressure,
                        TelemetryBackpressure::fullPartitionCount)
                .description("partitions whose stream is full now: their devices' packets are held").register(registry);
        for (int p = 0; partitions > 1 && p < partitions; p++) {
            bindPartition(registry, retention, p);
        }
        m.group(registry, "teltonika.telemetry.group.lag", "entries not yet delivered to the group (estimated "
                + "from entry times before Redis 7)", GroupPosition::lag);
        m.group(registry, "teltonika.telemetry.group.oldest.undelivered.age.seconds",
                "age of the oldest entry not yet delivered to the group",
                (g, s) -> g.oldestUndeliveredAgeMs(System.currentTimeMillis()) / 1000.0);
        m.group(registry, "teltonika.telemetry.group.pending", "entries delivered to the group, not acknowledged",
                (g, s) -> g.pending());
        m.group(registry, "teltonika.telemetry.group.oldest.pending.age.seconds",
                "age of the group's oldest entry delivered but not acknowledged",
                (g, s) -> g.oldestPendingAgeMs(System.currentTimeMillis()) / 1000.0);
        m.group(registry, "teltonika.telemetry.group.consumers", "consumers the group knows",
                (g, s) -> g.consumers());
        retention.onPass(m::show);
    }

    private static void bindPartition(MeterRegistry registry, StreamRetention retention, int partition) {
        Tags tags = Tags.of("partition", Integer.toString(partition));
        Gauge.builder("teltonika.telemetry.partition.length", retention, r -> of(r, partition).length())
                .tags(tags).description("entries in one partition's stream after the last retention pass")
                .register(registry);
        Gauge.builder("teltonika.telemetry.partition.unread", retention, r -> of(r, partition).unread())
                .tags(tags).description("entries of one partition the slowest consumer group still needs")
                .register(registry);
    }

    private static StreamSnapshot of(StreamRetention retention, int partition) {
        List<StreamSnapshot> partitions = retention.lastPartitions();
        return partition < partitions.size() ? partitions.get(partition) : StreamSnapshot.NONE;
    }

    private void group(MeterRegistry registry, String name, String description,
                       ToDoubleBiFunction<GroupPosition, StreamSnapshot> value) {
        perGroup.add(MultiGauge.builder(name).description(description).register(registry));
        values.add(value);
    }

    /** Brings the per-group series in line with a pass's groups (a deleted group's series go). */
    private void show(StreamSnapshot stream) {
        List<GroupPosition> groups = new ArrayList<>(stream.groups());
        groups.sort(Comparator.comparingLong((GroupPosition g) -> g.lag(stream) + g.pending()).reversed());
        List<GroupPosition> top = groups.subList(0, Math.min(MAX_GROUPS, groups.size()));
        for (int i = 0; i < perGroup.size(); i++) {
            ToDoubleBiFunction<GroupPosition, StreamSnapshot> value = values.get(i);
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (GroupPosition g : top) {
                rows.add(MultiGauge.Row.of(Tags.of("group", g.name()), () -> value.applyAsDouble(g, stream)));
            }
            perGroup.get(i).register(rows, true);
        }
    }
}
