package org.fleetpipe.teltonika.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecId;

/**
 * The server's meters, named once here. Prometheus shows them with the {@code teltonika_} prefix;
 * no meter is ever tagged with an IMEI or an address, which would explode the series count.
 */
public final class IngestionMetrics {

    private final MeterRegistry registry;
    private final AtomicInteger activeConnections = new AtomicInteger();
    private final Counter connectionsOpened;
    private final Map<String, Counter> closed = new ConcurrentHashMap<>();
    private final Map<CodecId, Counter> framesReceived = new EnumMap<>(CodecId.class);
    private final Map<CodecId, Counter> recordsWritten = new EnumMap<>(CodecId.class);
    private final Map<CodecId, Counter> recordsDuplicate = new EnumMap<>(CodecId.class);
    private final Map<String, Counter> rejected = new ConcurrentHashMap<>();
    private final Map<String, Counter> logins = new ConcurrentHashMap<>();
    private final Map<String, Counter> redisErrors = new ConcurrentHashMap<>();
    private final Map<String, Counter> commands = new ConcurrentHashMap<>();
    private final Map<String, Counter> registryActions = new ConcurrentHashMap<>();
    private final Map<String, Counter> purged = new ConcurrentHashMap<>();
    private final Map<String, Counter> purgePasses = new ConcurrentHashMap<>();
    private final Map<String, Counter> deadLettersDropped = new ConcurrentHashMap<>();
    private final Counter udpOverBudget;
    private final Counter acceptsOverNetworkShare;
    private final Counter pings;
    private final Counter acceptPauses;
    private final Counter acceptsWaitingFull;
    private final Counter acceptsDeferred;
    private final Counter replicaShortfalls;
    private final Counter deviceRateDelayed;
    private final Counter deviceRateDropped;
    private final Timer ackLatency;

    public IngestionMetrics(MeterRegistry registry) {
        this.registry = registry;
        registry.gauge("teltonika.connections.active", activeConnections);
        connectionsOpened = Counter.builder("teltonika.connections.opened").register(registry);
        for (CodecId codec : CodecId.values()) {
            framesReceived.put(codec, Counter.builder("teltonika.frames.received").tag("codec", codec.label())
                    .register(registry));
            if (codec.isAvl()) {
                recordsWritten.put(codec, Counter.builder("teltonika.records.written").tag("codec", codec.label())
                        .register(registry));
                recordsDuplicate.put(codec, Counter.builder("teltonika.records.duplicate").tag("codec", codec.label())
                        .description("records acknowledged but not stored again: resent within the dedup window")
                        .register(registry));
            }
        }
        pings = Counter.builder("teltonika.pings.received").register(registry);
        acceptPauses = Counter.builder("teltonika.accept.pauses")
                .description("times the device listeners stopped accepting: MAX_ACCEPT_WAITING connections waited "
                        + "for their turn already").register(registry);
        acceptsOverNetworkShare = Counter.builder("teltonika.accept.refused").tag("reason", "network-share")
                .description("connections closed as soon as accepted: MAX_ACCEPT_WAITING_PER_NETWORK of their "
                        + "source network (/24, /64) waited for their turn already").register(registry);
        acceptsWaitingFull = Counter.builder("teltonika.accept.refused").tag("reason", "waiting-full")
                .description("waiting connections closed to make room for another network's: MAX_ACCEPT_WAITING "
                        + "waited, the most of them from their network").register(registry);
        acceptsDeferred = Counter.builder("teltonika.accept.deferred")
                .description("connections that waited for their turn (MAX_ACCEPTS_PER_SECOND, "
                        + "MAX_ACCEPTS_PER_NETWORK_PER_SECOND) instead of being handed on at once").register(registry);
        udpOverBudget = Counter.builder("teltonika.udp.dropped").tag("reason", "write-budget")
                .description("UDP datagrams dropped unacknowledged: the instance's UDP write budget "
                        + "(MAX_UDP_RECORDS_PER_SECOND) was used up").register(registry);
        replicaShortfalls = Counter.builder("teltonika.ack.replica.shortfalls")
                .description("WAITs that confirmed fewer replicas than ACK_REPLICAS").register(registry);
        deviceRateDelayed = Counter.builder("teltonika.device.rate.limited").tag("action", "delayed")
                .description("packets held back because their device was over its rate budget "
                        + "(DEVICE_RECORDS_PER_SECOND, DEVICE_BYTES_PER_SECOND): TCP packets delayed, datagrams dropped")
                .register(registry);
        deviceRateDropped = Counter.builder("teltonika.device.rate.limited").tag("action", "dropped")
                .register(registry);
        // Series exist from the start (at 0), so rates and alerts see no gaps before the first event.
        for (CodecException.Reason reason : CodecException.Reason.values()) {
            frameRejectedCounter(reason.label());
        }
        for (String rule : new String[] {"not-logged-in", "second-login", "too-many-queued-frames",
                "codec15-imei-mismatch"}) {
            frameRejectedCounter(rule);
        }
        for (String op : new String[] {"telemetry-write", "dead-letter", "registry-claim", "registry-release",
                "command-take", "command-finish", "command-requeue", "device-message", "admission",
                "admission-recheck"}) {
            redisErrorCounter(op);
        }
        loginCounter(true, "ok");
        for (String reason : new String[] {"luhn", "malformed", "denied", "not-allowed", "registry-error",
                "new-imei-limit", "not-tcp-known"}) {
            loginCounter(false, reason);
        }
        for (String outcome : new String[] {"queued", "rejected", "sent", "replied", "nack", "timeout", "expired",
                "attempts", "device-message", "device-message-dropped"}) {
            commandCounter(outcome);
        }
        for (String action : new String[] {"claim", "claim-replaced", "release", "release-not-owner", "taken-over"}) {
            registryCounter(action);
        }
        for (String mode : new String[] {"dry-run", "live"}) {
            for (String what : new String[] {"orphaned-command", "frame-dead-letter", "command-dead-letter"}) {
                purgedCounter(what, mode);
            }
            purgePassCounter(mode);
        }
        for (String reason : new String[] {"rate", "address-rate", "disabled"}) {
            deadLetterDroppedCounter(reason);
        }
        ackLatency = Timer.builder("teltonika.ack.latency")
                .description("complete frame received to ACK written, Redis write included")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
    }

    /** Metrics that go nowhere, for tests that do not look at them. */
    public static IngestionMetrics noop() {
        return new IngestionMetrics(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void connectionOpened() {
        activeConnections.incrementAndGet();
        connectionsOpened.increment();
    }

    /** A device connection closed, for {@code reason} (a close reason's label). */
    public void connectionClosed(String reason) {
        activeConnections.decrementAndGet();
        closed.computeIfAbsent(reason, this::closedCounter).increment();
    }

    /** Starts the close counters of {@code reasons} at 0, so rates and alerts see no gaps before the first close. */
    public void closeReasons(Iterable<String> reasons) {
        reasons.forEach(reason -> closed.computeIfAbsent(reason, this::closedCounter));
    }

    private Counter closedCounter(String reason) {
        return Counter.builder("teltonika.connections.closed").tag("reason", reason).register(registry);
    }

    /** The device listeners stopped accepting: MAX_ACCEPT_WAITING connections wait for their turn. */
    public void acceptPaused() {
        acceptPauses.increment();
    }

    /** A connection waits for its turn (MAX_ACCEPTS_PER_SECOND, MAX_ACCEPTS_PER_NETWORK_PER_SECOND). */
    public void acceptDeferred() {
        acceptsDeferred.increment();
    }

    /** A connection closed by the accept pacer: {@code reason} "network-share" or "waiting-full". */
    public void acceptRefused(String reason) {
        ("waiting-full".equals(reason) ? acceptsWaitingFull : acceptsOverNetworkShare).increment();
    }

    /** Shows {@code count} as the accepted connections waiting for their turn. */
    public void acceptWaiting(java.util.function.IntSupplier count) {
        io.micrometer.core.instrument.Gauge.builder("teltonika.accept.waiting", count::getAsInt)
                .description("connections accepted and waiting for their turn, unread (MAX_ACCEPT_WAITING)")
                .register(registry);
    }

    /** A datagram dropped unacknowledged over the UDP write budget (MAX_UDP_RECORDS_PER_SECOND). */
    public void udpOverBudget() {
        udpOverBudget.increment();
    }

    public int activeConnections() {
        return activeConnections.get();
    }

    /** Shows {@code count} as the connections accepted and not logged in yet. */
    public void preLoginConnections(java.util.function.IntSupplier count) {
        io.micrometer.core.instrument.Gauge.builder("teltonika.connections.pre.login", count::getAsInt)
                .description("connections accepted and not logged in yet").register(registry);
    }

    /**
     * A refused frame that was counted but not stored in dlq:frames: {@code rate} (the instance's
     * rate), {@code address-rate} (its source address's rate) or {@code disabled} (DLQ_ENABLED=false).
     */
    public void deadLetterDropped(String reason) {
        deadLetterDroppedCounter(reason).increment();
    }

    private Counter deadLetterDroppedCounter(String reason) {
        return deadLettersDropped.computeIfAbsent(reason, r -> Counter.builder("teltonika.dead.letters.dropped")
                .tag("reason", r).register(registry));
    }

    public void frameReceived(CodecId codec) {
        framesReceived.get(codec).increment();
    }

    public void pingReceived() {
        pings.increment();
    }

    /** A TCP packet waits for its device's rate budget. */
    public void deviceRateDelayed() {
        deviceRateDelayed.increment();
    }

    /** A datagram is dropped unacknowledged: its device is over its rate budget. */
    public void deviceRateDropped() {
        deviceRateDropped.increment();
    }

    /** A packet of {@code total} records was acknowledged; {@code stored} of them were new. */
    public void recordsWritten(CodecId codec, int stored, int total) {
        recordsWritten.get(codec).increment(stored);
        if (total > stored) {
            recordsDuplicate.get(codec).increment(total - stored);
        }
    }

    /** A frame or datagram refused; {@code reason} is a codec reason label or a session rule. */
    public void frameRejected(String reason) {
        frameRejectedCounter(reason).increment();
    }

    private Counter frameRejectedCounter(String reason) {
        return rejected.computeIfAbsent(reason, r -> Counter.builder("teltonika.frames.rejected").tag("reason", r)
                .register(registry));
    }

    public void login(boolean accepted, String reason) {
        loginCounter(accepted, reason).increment();
    }

    private Counter loginCounter(boolean accepted, String reason) {
        return logins.computeIfAbsent(accepted + "/" + reason, k -> Counter.builder("teltonika.logins")
                .tag("result", accepted ? "accepted" : "refused").tag("reason", reason).register(registry));
    }

    public void redisError(String operation) {
        redisErrorCounter(operation).increment();
    }

    private Counter redisErrorCounter(String operation) {
        return redisErrors.computeIfAbsent(operation, op -> Counter.builder("teltonika.redis.errors").tag("op", op)
                .register(registry));
    }

    /** A registry claim at login; {@code replaced} when the registry already named an instance for it. */
    public void registryClaim(boolean replaced) {
        registryCounter("claim").increment();
        if (replaced) {
            registryCounter("claim-replaced").increment();
        }
    }

    /** A release at disconnect; {@code removed} false when the entry already named someone else. */
    public void registryRelease(boolean removed) {
        registryCounter(removed ? "release" : "release-not-owner").increment();
    }

    /** A local connection closed because another instance took the device over. */
    public void registryTakenOver() {
        registryCounter("taken-over").increment();
    }

    private Counter registryCounter(String action) {
        return registryActions.computeIfAbsent(action, a -> Counter.builder("teltonika.registry.actions")
                .tag("action", a).register(registry));
    }

    /** A command event: sent, replied, nack, timeout, expired, attempts, handed-back, device-message, queued, rejected. */
    public void command(String outcome) {
        command(outcome, 1);
    }

    public void command(String outcome, long n) {
        commandCounter(outcome).increment(n);
    }

    private Counter commandCounter(String outcome) {
        return commands.computeIfAbsent(outcome, o -> Counter.builder("teltonika.commands").tag("outcome", o)
                .register(registry));
    }

    /** What a purge removed ({@code mode} live) or would have removed ({@code mode} dry-run), by what it was. */
    public void purged(String what, String mode, long n) {
        purgedCounter(what, mode).increment(n);
    }

    private Counter purgedCounter(String what, String mode) {
        return purged.computeIfAbsent(what + "/" + mode, k -> Counter.builder("teltonika.purge.removed")
                .tag("what", what).tag("mode", mode).register(registry));
    }

    /** One purge pass ran, scheduled or on demand, in {@code mode} live or dry-run. */
    public void purgePass(String mode) {
        purgePassCounter(mode).increment();
    }

    private Counter purgePassCounter(String mode) {
        return purgePasses.computeIfAbsent(mode, m -> Counter.builder("teltonika.purge.passes").tag("mode", m)
                .register(registry));
    }

    /** A WAIT confirmed fewer replicas than ACK_REPLICAS: its packets were not acknowledged. */
    public void replicaShortfall() {
        replicaShortfalls.increment();
    }

    public void ackLatencyNanos(long nanos) {
        ackLatency.record(Duration.ofNanos(nanos));
    }
}
