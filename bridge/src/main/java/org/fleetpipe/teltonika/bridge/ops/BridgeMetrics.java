package org.fleetpipe.teltonika.bridge.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/** The bridge's {@code teltonika_bridge_*} meters, labelled with the sink and the group. */
public final class BridgeMetrics {

    private final Counter delivered;
    private final Counter retried;
    private final Counter duplicates;
    private final Counter refused;
    private final Counter malformed;
    private final Counter trimmed;
    private final Counter redisErrors;
    private final Counter claimed;
    private final Counter splits;
    private final Timer sinkLatency;
    private final Timer deliveryDelay;
    private final AtomicLong failingSince = new AtomicLong();
    private final AtomicLong refusingSince = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger holdingForDeadLetterRoom =
            new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicLong lagEntries = new AtomicLong(-1);
    private final AtomicLong lagMillis = new AtomicLong();
    private final AtomicLong partitionsHeld = new AtomicLong();

    public BridgeMetrics(MeterRegistry registry, String sink, String group, Supplier<Number> inFlight) {
        String[] tags = {"sink", sink, "group", group};
        delivered = Counter.builder("teltonika_bridge_delivered").description("Records the sink confirmed")
                .tags(tags).register(registry);
        retried = Counter.builder("teltonika_bridge_retried").description("Records sent again after a failed attempt")
                .tags(tags).register(registry);
        duplicates = Counter.builder("teltonika_bridge_duplicates")
                .description("Records sent again although the sink had confirmed them (kept behind an earlier"
                        + " record of the same device that had to be retried)")
                .tags(tags).register(registry);
        refused = Counter.builder("teltonika_bridge_dead_lettered").description("Entries moved to the dead-letter stream")
                .tags(tags).tag("reason", "refused").register(registry);
        malformed = Counter.builder("teltonika_bridge_dead_lettered").description("Entries moved to the dead-letter stream")
                .tags(tags).tag("reason", "malformed").register(registry);
        trimmed = Counter.builder("teltonika_bridge_trimmed")
                .description("Pending entries found trimmed from the stream (nothing to deliver)")
                .tags(tags).register(registry);
        redisErrors = Counter.builder("teltonika_bridge_redis_errors").description("Redis calls that failed")
                .tags(tags).register(registry);
        claimed = Counter.builder("teltonika_bridge_claimed")
                .description("Entries taken over from a consumer that left them unacknowledged (a dead replica)")
                .tags(tags).register(registry);
        splits = Counter.builder("teltonika_bridge_batches_split")
                .description("Batches the sink refused as a whole for a record in it, split to find that record")
                .tags(tags).register(registry);
        sinkLatency = Timer.builder("teltonika_bridge_sink_latency").description("Time for the sink to answer a batch")
                .tags(tags).publishPercentileHistogram().maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        deliveryDelay = Timer.builder("teltonika_bridge_delivery_delay")
                .description("From the server's reception of a record (rx) to the sink's confirmation: how late"
                        + " the platform sees it").tags(tags).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofHours(1))
                .register(registry);
        Gauge.builder("teltonika_bridge_in_flight", inFlight).description("Entries read and not yet acknowledged")
                .tags(tags).register(registry);
        Gauge.builder("teltonika_bridge_sink_failing", failingSince, since -> since.get() == 0 ? 0 : 1)
                .description("1 while the sink's last answer asked for a retry (away, overloaded or refusing the"
                        + " bridge)").tags(tags).register(registry);
        Gauge.builder("teltonika_bridge_sink_refusing", refusingSince, since -> since.get() == 0 ? 0 : 1)
                .description("1 while the sink's last answer refused the bridge itself (credentials, permissions,"
                        + " address): retried, but someone must fix it").tags(tags).register(registry);
        Gauge.builder("teltonika_bridge_dead_letters_full", holdingForDeadLetterRoom,
                        holding -> holding.get() == 0 ? 0 : 1)
                .description("1 while a dead letter waits for room below the cap: the bridge holds, acknowledging"
                        + " nothing behind it").tags(tags).register(registry);
        Gauge.builder("teltonika_bridge_lag", lagEntries, AtomicLong::get)
                .description("Entries of the stream the group has not acknowledged (-1 when unknown)")
                .tags(tags).register(registry);
        Gauge.builder("teltonika_bridge_lag_seconds", lagMillis, millis -> millis.get() / 1000.0)
                .description("Age of the oldest entry the group has not acknowledged").tags(tags).register(registry);
        Gauge.builder("teltonika_bridge_partitions_held", partitionsHeld, AtomicLong::get)
                .description("Telemetry partitions this replica holds the lease of (0: a standby)")
                .tags(tags).register(registry);
    }

    /** A record the sink confirmed now, received by the server at {@code rxMillis} (-1: unknown, not counted). */
    public void deliveryDelay(long rxMillis) {
        if (rxMillis > 0) {
            deliveryDelay.record(Math.max(0, System.currentTimeMillis() - rxMillis), TimeUnit.MILLISECONDS);
        }
    }

    public void delivered(int records) {
        delivered.increment(records);
    }

    public void retried(int records) {
        retried.increment(records);
    }

    public void duplicates(int records) {
        duplicates.increment(records);
    }

    public void refused() {
        refused.increment();
    }

    public void malformed() {
        malformed.increment();
    }

    public void trimmed(int entries) {
        trimmed.increment(entries);
    }

    public void claimed(int entries) {
        claimed.increment(entries);
    }

    public void redisError() {
        redisErrors.increment();
    }

    public void sinkAnswered(long nanos) {
        sinkLatency.record(Duration.ofNanos(nanos));
    }

    /** Records whether the sink's last answer was a failure, keeping when the failures began. */
    public void sinkFailing(boolean failing, long nowMillis) {
        if (!failing) {
            failingSince.set(0);
        } else {
            failingSince.compareAndSet(0, nowMillis);
        }
    }

    /** Records whether the sink's last answer refused the bridge itself, keeping when that began. */
    public void sinkRefusing(boolean refusing, long nowMillis) {
        if (!refusing) {
            refusingSince.set(0);
        } else {
            refusingSince.compareAndSet(0, nowMillis);
        }
    }

    /** When the sink began refusing the bridge without an answer of another kind since, or 0. */
    public long sinkRefusingSince() {
        return refusingSince.get();
    }

    /** A lane starts ({@code true}) or stops waiting for room in the dead-letter stream. */
    public void holdingForDeadLetterRoom(boolean holding) {
        if (holding) {
            holdingForDeadLetterRoom.incrementAndGet();
        } else {
            holdingForDeadLetterRoom.decrementAndGet();
        }
    }

    /** Whether some lane waits for room in the dead-letter stream. */
    public boolean deadLettersFull() {
        return holdingForDeadLetterRoom.get() > 0;
    }

    public void split() {
        splits.increment();
    }

    /** When the sink began failing without a success since, or 0. */
    public long sinkFailingSince() {
        return failingSince.get();
    }

    public void partitionsHeld(int partitions) {
        partitionsHeld.set(partitions);
    }

    public long partitionsHeld() {
        return partitionsHeld.get();
    }

    public void lag(long entries, long oldestMillis) {
        lagEntries.set(entries);
        lagMillis.set(oldestMillis);
    }
}
