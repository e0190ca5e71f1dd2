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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops acknowledging while consumer groups are too far behind: the telemetry stream holds more
 * entries than its cap, or Redis's memory is nearly full. Packets are then held, not written (so
 * not acknowledged, and their connection reads nothing more), until the retention pass sees the
 * groups caught up; then they are written and acknowledged. A packet held longer than
 * {@code maxHold}, or past {@code maxHeldRecords}, fails: its connection closes and the device
 * resends later from its own memory. A packet whose connection closed is dropped from the hold.
 * Nothing stored is ever removed to make room.
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
    private final AtomicLong heldRecords = new AtomicLong();
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
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection) {
        if (!engaged) {
            return delegate.write(imei, packet, receivedAtMillis, connection);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new StreamFull("stopping while the telemetry stream is full"));
        }
        int packets = heldNow.incrementAndGet();
        long records = heldRecords.addAndGet(packet.size());
        if (packets > maxHeld || records > settings.maxHeldRecords()) {
            heldNow.decrementAndGet();
            heldRecords.addAndGet(-packet.size());
            expiredTotal.incrementAndGet();
            return CompletableFuture.failedFuture(new StreamFull("telemetry stream full and " + heldNow.get()
                    + " packets (" + heldRecords.get() + " records) already held"));
        }
        heldTotal.incrementAndGet();
        // The event loop the packet came from, so that its write joins that loop's batch when released;
        // a copy of the packet, as its bytes were lent for this call only.
        Held h = new Held(imei, packet.copy(), receivedAtMillis, connection, ThreadExecutorMap.currentExecutor(),
                nanoTime.getAsLong());
        held.add(h);
        if (closed) {
            // close() may have drained the queue just before this packet went in.
            h.fail("stopping while the telemetry stream is full");
        }
        return h;
    }

    /**
     * Takes the retention pass's view: engages when the stream (or Redis's memory) reached its cap
     * while groups read it; lets go once back below the resume marks, writing what was held. Then
     * fails packets held too long. Called on the retention thread only.
     */
    public void update(StreamSnapshot stream) {
        long nowNanos = nanoTime.getAsLong();
        if (!engaged && settings.full(stream)) {
            engaged = true;
            engagedTotal.incrementAndGet();
            engagedAtNanos = nowNanos;
            remindedAtNanos = nowNanos;
            LOG.warn("telemetry stream full: {}; {}; packets are not acknowledged (devices keep their records) "
                    + "until the consumers catch up", state(stream), slowest(stream));
        } else if (engaged && settings.clear(stream)) {
            engaged = false;
            LOG.info("telemetry stream no longer full: {}; acknowledging again after {} s; writing {} held packets",
                    state(stream), TimeUnit.NANOSECONDS.toSeconds(nowNanos - engagedAtNanos), heldNow.get());
        } else if (engaged && nowNanos - remindedAtNanos >= REMIND_EVERY_NANOS) {
            remindedAtNanos = nowNanos;
            LOG.warn("telemetry stream still full for {} s: {}; {}; {} packets held",
                    TimeUnit.NANOSECONDS.toSeconds(nowNanos - engagedAtNanos), state(stream), slowest(stream),
                    heldNow.get());
        }
        if (!engaged) {
            // Also picks up a packet that saw the gate engaged just before it opened.
            releaseHeld();
        }
        expireHeld();
    }

    private String state(StreamSnapshot stream) {
        String memory = stream.maxMemory() > 0 ? String.format(", Redis memory %.0f %% of maxmemory (stop at %.0f %%, "
                + "TELEMETRY_MAX_REDIS_MEMORY)", 100 * stream.memoryFraction(), 100 * settings.maxRedisMemory()) : "";
        return settings.measure(stream) + " entries the consumer groups still need, cap " + settings.maxUnread()
                + " (TELEMETRY_MAX_UNREAD)" + memory;
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
            if (!h.take()) {
                continue;
            }
            Held packet = h;
            if (packet.loop == null) {
                forward(packet);
                continue;
            }
            try {
                packet.loop.execute(() -> forward(packet));
            } catch (RejectedExecutionException stopping) {
                packet.completeExceptionally(new StreamFull("stopping"));
            }
        }
    }

    private void forward(Held h) {
        CompletionStage<Integer> written;
        try {
            written = delegate.write(h.imei, h.packet, h.receivedAtMillis, h.connection);
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        written.whenComplete((stored, error) -> {
            if (error != null) {
                h.completeExceptionally(error);
            } else {
                h.complete(stored);
            }
        });
    }

    /** Fails packets held longer than {@code maxHold}, and forgets abandoned ones. Retention thread only. */
    public void expireHeld() {
        long nowNanos = nanoTime.getAsLong();
        long maxHoldNanos = settings.maxHold().toNanos();
        Held h;
        while ((h = held.peek()) != null && (h.taken() || nowNanos - h.heldAtNanos >= maxHoldNanos)) {
            // remove(h), not poll(): close() may take from the queue at the same time.
            if (held.remove(h)
                    && h.fail("telemetry stream full for " + Duration.ofNanos(nowNanos - h.heldAtNanos).toSeconds() + " s")) {
                expiredTotal.incrementAndGet();
            }
        }
    }

    /** Fails every held packet (no ACK; the devices resend to another replica): the server is stopping. */
    public void close() {
        closed = true;
        Held h;
        while ((h = held.poll()) != null) {
            h.fail("stopping while the telemetry stream is full");
        }
    }

    public boolean engaged() {
        return engaged;
    }

    /** Packets held now. */
    public int held() {
        return heldNow.get();
    }

    /** Records held now. */
    public long heldRecords() {
        return heldRecords.get();
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

    /** A held packet; the future its writer waits on. Leaves the hold exactly once: written, failed or abandoned. */
    public final class Held extends CompletableFuture<Integer> {
        private final Imei imei;
        private final AvlPacketView packet;
        private final long receivedAtMillis;
        private final ResendGuard connection;
        private final EventExecutor loop;
        private final long heldAtNanos;
        private final AtomicBoolean out = new AtomicBoolean();

        private Held(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection, EventExecutor loop,
                     long heldAtNanos) {
            this.imei = imei;
            this.packet = packet;
            this.receivedAtMillis = receivedAtMillis;
            this.connection = connection;
            this.loop = loop;
            this.heldAtNanos = heldAtNanos;
        }

        /** Takes it out of the hold's counts; false when something else already did. */
        private boolean take() {
            if (!out.compareAndSet(false, true)) {
                return false;
            }
            heldNow.decrementAndGet();
            heldRecords.addAndGet(-packet.size());
            return true;
        }

        private boolean taken() {
            return out.get();
        }

        private boolean fail(String why) {
            if (!take()) {
                return false;
            }
            completeExceptionally(new StreamFull(why));
            return true;
        }

        /** Its connection closed: never write it (the device resends it anyway). Any thread. */
        public void abandon() {
            fail("the device's connection closed while its packet was held");
        }
    }
}
