package org.fleetpipe.teltonika.server.stream;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops acknowledging while the telemetry stream holds more than its cap of entries the consumer
 * groups still need: packets are held, not written (so not acknowledged, and their connection
 * reads nothing more), until the retention pass sees the consumers caught up; then they are
 * written and acknowledged. A packet held longer than {@code maxHold} fails, its connection
 * closes, and the device resends later from its own memory. Nothing stored is ever removed to
 * make room. Held packets are bounded by the connections and UDP writes that may be under way.
 */
public final class TelemetryBackpressure implements TelemetryWriter {

    private static final Logger LOG = LoggerFactory.getLogger(TelemetryBackpressure.class);
    private static final long REMIND_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final TelemetryWriter delegate;
    private final StreamRetentionSettings settings;
    private final int maxHeld;
    private final LongSupplier nanoTime;
    private final Queue<Held> held = new ConcurrentLinkedQueue<>();
    private final AtomicInteger heldNow = new AtomicInteger();
    private final AtomicLong heldTotal = new AtomicLong();
    private final AtomicLong expiredTotal = new AtomicLong();
    private final AtomicLong engagedTotal = new AtomicLong();
    private volatile boolean engaged;
    private volatile boolean closed;
    private long engagedAtNanos;
    private long remindedAtNanos;

    /** {@code maxHeld} bounds the packets held at once; more fail at once (their connection closes). */
    public TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld) {
        this(delegate, settings, maxHeld, System::nanoTime);
    }

    TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld, LongSupplier nanoTime) {
        this.delegate = delegate;
        this.settings = settings;
        this.maxHeld = maxHeld;
        this.nanoTime = nanoTime;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        if (!engaged) {
            return delegate.write(imei, packet, receivedAtMillis);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new StreamFull("stopping while the telemetry stream is full"));
        }
        if (heldNow.incrementAndGet() > maxHeld) {
            heldNow.decrementAndGet();
            expiredTotal.incrementAndGet();
            return CompletableFuture.failedFuture(new StreamFull("telemetry stream full and "
                    + maxHeld + " packets already held"));
        }
        heldTotal.incrementAndGet();
        // The event loop the packet came from, so that its write joins that loop's batch when released.
        Held h = new Held(imei, packet, receivedAtMillis, ThreadExecutorMap.currentExecutor(), new CompletableFuture<>(),
                nanoTime.getAsLong());
        held.add(h);
        if (closed && held.remove(h)) {
            // close() may have drained the queue just before this packet went in.
            heldNow.decrementAndGet();
            h.result.completeExceptionally(new StreamFull("stopping while the telemetry stream is full"));
        }
        return h.result;
    }

    /**
     * Takes the retention pass's view: engages when the stream, with groups reading it, reached the
     * cap; lets go once it is back below {@link StreamRetentionSettings#resumeBelow()}, writing what
     * was held. Then fails packets held too long. Called on the retention thread only.
     */
    public void update(StreamSnapshot stream) {
        long nowNanos = nanoTime.getAsLong();
        boolean full = settings.capped() && stream.hasGroups() && stream.length() >= settings.maxUnread();
        boolean clear = !settings.capped() || !stream.hasGroups() || stream.length() < settings.resumeBelow();
        if (!engaged && full) {
            engaged = true;
            engagedTotal.incrementAndGet();
            engagedAtNanos = nowNanos;
            remindedAtNanos = nowNanos;
            LOG.warn("telemetry stream full: {} entries held for consumer groups, cap {} (TELEMETRY_MAX_UNREAD); {}; "
                    + "packets are not acknowledged (devices keep their records) until the consumers catch up",
                    stream.length(), settings.maxUnread(), slowest(stream));
        } else if (engaged && clear) {
            engaged = false;
            LOG.info("telemetry stream at {} entries, below {}: acknowledging again after {} s; writing {} held packets",
                    stream.length(), settings.resumeBelow(), TimeUnit.NANOSECONDS.toSeconds(nowNanos - engagedAtNanos),
                    heldNow.get());
        } else if (engaged && nowNanos - remindedAtNanos >= REMIND_EVERY_NANOS) {
            remindedAtNanos = nowNanos;
            LOG.warn("telemetry stream still full for {} s: {} entries, cap {}; {}; {} packets held",
                    TimeUnit.NANOSECONDS.toSeconds(nowNanos - engagedAtNanos), stream.length(), settings.maxUnread(),
                    slowest(stream), heldNow.get());
        }
        if (!engaged) {
            // Also picks up a packet that saw the gate engaged just before it opened.
            releaseHeld();
        }
        expireHeld();
    }

    /** The group with the most entries it still needs, for the log line. */
    private static String slowest(StreamSnapshot stream) {
        long now = System.currentTimeMillis();
        GroupPosition slowest = null;
        for (GroupPosition g : stream.groups()) {
            if (slowest == null || g.lag(stream) + g.pending() > slowest.lag(stream) + slowest.pending()) {
                slowest = g;
            }
        }
        return slowest == null ? "no group" : "slowest group '" + slowest.name() + "': " + slowest.lag(stream)
                + " undelivered (oldest " + slowest.oldestUndeliveredAgeMs(now) / 1000 + " s), " + slowest.pending()
                + " pending (oldest " + slowest.oldestPendingAgeMs(now) / 1000 + " s)";
    }

    private void releaseHeld() {
        Held h;
        while ((h = held.poll()) != null) {
            heldNow.decrementAndGet();
            Held packet = h;
            if (packet.loop == null) {
                forward(packet);
                continue;
            }
            try {
                packet.loop.execute(() -> forward(packet));
            } catch (RejectedExecutionException stopping) {
                packet.result.completeExceptionally(new StreamFull("stopping"));
            }
        }
    }

    private void forward(Held h) {
        delegate.write(h.imei, h.packet, h.receivedAtMillis).whenComplete((stored, error) -> {
            if (error != null) {
                h.result.completeExceptionally(error);
            } else {
                h.result.complete(stored);
            }
        });
    }

    /** Fails packets held longer than {@code maxHold}. Called on the retention thread only. */
    public void expireHeld() {
        long nowNanos = nanoTime.getAsLong();
        long maxHoldNanos = settings.maxHold().toNanos();
        Held h;
        while ((h = held.peek()) != null && nowNanos - h.heldAtNanos >= maxHoldNanos) {
            // Only this thread takes from the queue: the head peeked is the head polled.
            held.poll();
            heldNow.decrementAndGet();
            expiredTotal.incrementAndGet();
            h.result.completeExceptionally(new StreamFull("telemetry stream full for "
                    + Duration.ofNanos(nowNanos - h.heldAtNanos).toSeconds() + " s"));
        }
    }

    /** Fails every held packet (no ACK; the devices resend to another replica): the server is stopping. */
    public void close() {
        closed = true;
        Held h;
        while ((h = held.poll()) != null) {
            heldNow.decrementAndGet();
            h.result.completeExceptionally(new StreamFull("stopping while the telemetry stream is full"));
        }
    }

    public boolean engaged() {
        return engaged;
    }

    /** Packets held now. */
    public int held() {
        return heldNow.get();
    }

    /** Packets held since start. */
    public long heldTotal() {
        return heldTotal.get();
    }

    /** Packets that failed unwritten because the stream stayed full (held too long, or too many held). */
    public long expiredTotal() {
        return expiredTotal.get();
    }

    /** How often back-pressure engaged since start. */
    public long engagedTotal() {
        return engagedTotal.get();
    }

    private record Held(Imei imei, AvlPacket packet, long receivedAtMillis, EventExecutor loop,
                        CompletableFuture<Integer> result, long heldAtNanos) {
    }
}
