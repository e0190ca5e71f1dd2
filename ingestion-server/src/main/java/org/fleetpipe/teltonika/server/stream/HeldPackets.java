package org.fleetpipe.teltonika.server.stream;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.StreamFull;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;

/**
 * The books of the packets held unwritten: what is held now (packets, records, bytes, each
 * bounded: a packet past a bound fails at once), what was held and failed since start, and the
 * held packets themselves, in the order they came, until they are released to the writer, expire,
 * are abandoned by their connection or failed by a stop.
 */
final class HeldPackets {

    private final TelemetryWriter delegate;
    private final int maxHeld;
    private final long maxHeldRecords;
    private final long maxHeldBytes;
    private final ShareHoldLog shareLog;
    private final LongSupplier nanoTime;
    private final Queue<HeldPacket> held = new ConcurrentLinkedQueue<>();
    private final AtomicInteger heldNow = new AtomicInteger();
    private final AtomicLong heldRecords = new AtomicLong();
    private final AtomicLong heldBytes = new AtomicLong();
    /** Packets held since start, by {@link StreamShares.Hold} (its ordinal). */
    private final AtomicLong[] heldFor = new AtomicLong[StreamShares.Hold.values().length];
    private final AtomicLong heldTotal = new AtomicLong();
    private final AtomicLong expiredTotal = new AtomicLong();
    private volatile boolean closed;

    /** Held packets, once released, go to {@code delegate}; {@code shareLog} hears of every share hold. */
    HeldPackets(TelemetryWriter delegate, int maxHeld, long maxHeldRecords, long maxHeldBytes, ShareHoldLog shareLog,
                LongSupplier nanoTime) {
        this.delegate = delegate;
        this.maxHeld = maxHeld;
        this.maxHeldRecords = maxHeldRecords;
        this.maxHeldBytes = maxHeldBytes;
        this.shareLog = shareLog;
        this.nanoTime = nanoTime;
        for (int i = 0; i < heldFor.length; i++) {
            heldFor[i] = new AtomicLong();
        }
    }

    /** Holds the packet for {@code why}, or fails it at once when that would pass a bound or the server stops. */
    CompletionStage<Integer> hold(StreamShares.Hold why, Imei imei, int partition, AvlPacketView packet,
                                  long receivedAtMillis, ResendGuard connection, EventExecutor loop) {
        if (closed) {
            return CompletableFuture.failedFuture(new StreamFull("stopping while the telemetry stream is full"));
        }
        int packets = heldNow.incrementAndGet();
        long records = heldRecords.addAndGet(packet.size());
        long bytes = heldBytes.addAndGet(packet.recordBytes());
        if (packets > maxHeld || records > maxHeldRecords || bytes > maxHeldBytes) {
            left(packet);
            expiredTotal.incrementAndGet();
            return CompletableFuture.failedFuture(new StreamFull(reason(why) + " and "
                    + heldNow.get() + " packets (" + heldRecords.get() + " records, " + heldBytes.get()
                    + " bytes) already held"));
        }
        heldTotal.incrementAndGet();
        heldFor[why.ordinal()].incrementAndGet();
        if (why != StreamShares.Hold.STREAM_FULL) {
            shareLog.held();
        }
        HeldPacket h = new HeldPacket(this, imei, partition, packet.copy(), receivedAtMillis, connection, loop,
                nanoTime.getAsLong());
        held.add(h);
        if (closed) {
            // close() may have drained the queue just before this packet went in.
            h.fail("stopping while the telemetry stream is full");
        }
        return h;
    }

    /** A packet left the hold: out of the counts of what is held now. */
    void left(AvlPacketView packet) {
        heldNow.decrementAndGet();
        heldRecords.addAndGet(-packet.size());
        heldBytes.addAndGet(-packet.recordBytes());
    }

    /**
     * Writes the held packets whose partition is not full and whose devices are within their
     * share, in the order they came, each on the event loop it came from. Retention thread only.
     */
    void release(FullPartitions full, StreamShares shares) {
        Set<Imei> behind = new HashSet<>();
        for (Iterator<HeldPacket> it = held.iterator(); it.hasNext(); ) {
            HeldPacket h = it.next();
            if (h.taken()) {
                it.remove();
                continue;
            }
            // A device's later packets stay behind its first one still held (datagrams: several at once).
            if (behind.contains(h.imei) || full.full(h.partition)
                    || shares.admit(h.imei, h.connection.network(), h.packet.size()) != StreamShares.Hold.NONE) {
                behind.add(h.imei);
                continue;
            }
            if (!h.take()) {
                continue;
            }
            it.remove();
            if (h.loop == null) {
                forward(h);
                continue;
            }
            try {
                h.loop.execute(() -> forward(h));
            } catch (RejectedExecutionException stopping) {
                h.completeExceptionally(new StreamFull("stopping"));
            }
        }
    }

    private void forward(HeldPacket h) {
        CompletionStage<Integer> written;
        try {
            written = delegate.write(h.imei, h.packet, h.receivedAtMillis, h.connection, h.loop);
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

    /** Fails packets held {@code maxHold} or longer, and forgets abandoned ones. Retention thread only. */
    void expire(Duration maxHold) {
        long nowNanos = nanoTime.getAsLong();
        long maxHoldNanos = maxHold.toNanos();
        HeldPacket h;
        while ((h = held.peek()) != null && (h.taken() || nowNanos - h.heldAtNanos >= maxHoldNanos)) {
            // remove(h), not poll(): close() may take from the queue at the same time.
            if (held.remove(h) && h.fail("telemetry stream full for "
                    + Duration.ofNanos(nowNanos - h.heldAtNanos).toSeconds() + " s")) {
                expiredTotal.incrementAndGet();
            }
        }
    }

    /** Fails every held packet, and any held later: the server is stopping. */
    void close() {
        closed = true;
        HeldPacket h;
        while ((h = held.poll()) != null) {
            h.fail("stopping while the telemetry stream is full");
        }
    }

    /** The heaviest device held now by {@code shares}' estimate, for the log line; null when none. */
    Imei heaviest(StreamShares shares) {
        Imei heaviest = null;
        for (HeldPacket h : held) {
            if (!h.taken() && (heaviest == null || shares.estimate(h.imei) > shares.estimate(heaviest))) {
                heaviest = h.imei;
            }
        }
        return heaviest;
    }

    /** What a packet that could not even be held was waiting for, for its error. */
    private static String reason(StreamShares.Hold why) {
        return switch (why) {
            case NETWORK_SHARE -> "network over its fair share of the telemetry stream";
            case DEVICE_SHARE -> "device over its fair share of the telemetry stream";
            default -> "telemetry stream full";
        };
    }

    int packets() {
        return heldNow.get();
    }

    long records() {
        return heldRecords.get();
    }

    long bytes() {
        return heldBytes.get();
    }

    long total() {
        return heldTotal.get();
    }

    long total(StreamShares.Hold why) {
        return heldFor[why.ordinal()].get();
    }

    long expiredTotal() {
        return expiredTotal.get();
    }
}
