package org.fleetpipe.teltonika.server.stream;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.server.ingest.HeldWrite;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.StreamFull;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops acknowledging while consumer groups are too far behind: the telemetry stream holds more
 * entries than its cap, or Redis's memory is nearly full. Packets are then held, not written (so
 * not acknowledged, and their connection reads nothing more), until the retention pass sees the
 * groups caught up; then they are written and acknowledged. Once the stream is past the point
 * where its room is scarce, a device over its fair share ({@link StreamShares}: its network's, then
 * its own within the network) has its packets held alone in the same way, while the others keep
 * their ACKs. A packet held longer than {@code maxHold}, or past {@code maxHeldRecords}
 * or the held bytes' bound, fails: its connection closes and the device resends later from its own
 * memory. A packet whose connection closed is dropped from the hold. Nothing stored is ever removed
 * to make room. With several partitions each one's stream has its share of the cap and fills on
 * its own: only the packets of devices in a full partition are held.
 */
public final class TelemetryBackpressure implements TelemetryWriter {

    private static final Logger LOG = LoggerFactory.getLogger(TelemetryBackpressure.class);
    private static final long REMIND_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final TelemetryWriter delegate;
    private final StreamRetentionSettings settings;
    private final StreamRetentionSettings partitionSettings;
    private final ToIntFunction<Imei> partitionOf;
    /** Per partition, whether its stream is full; written by the retention thread before {@link #engaged}. */
    private final boolean[] full;
    private final long[] fullSinceNanos;
    private final int maxHeld;
    private final StreamShares shares;
    private final long maxHeldBytes;
    private final LongSupplier nanoTime;
    private final Queue<Held> held = new ConcurrentLinkedQueue<>();
    private final AtomicInteger heldNow = new AtomicInteger();
    private final AtomicLong heldRecords = new AtomicLong();
    private final AtomicLong heldBytes = new AtomicLong();
    /** Packets held since start, by {@link StreamShares.Hold} (its ordinal). */
    private final AtomicLong[] heldFor = new AtomicLong[StreamShares.Hold.values().length];
    private final ShareHoldLog shareLog;
    private final AtomicLong heldTotal = new AtomicLong();
    private final AtomicLong expiredTotal = new AtomicLong();
    private final AtomicLong engagedTotal = new AtomicLong();
    /** Whether any partition is full; its write publishes {@link #full} to the event loops. */
    private volatile boolean engaged;
    private volatile boolean closed;
    private long engagedAtNanos;
    private long remindedAtNanos;

    /** {@code maxHeld} bounds the packets held at once; more fail at once (their connection closes). */
    public TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld) {
        this(delegate, settings, maxHeld, StreamShares.off(), Long.MAX_VALUE, System::nanoTime);
    }

    /**
     * As above, with each device held alone past its fair share of the stream, and at most
     * {@code maxHeldBytes} of packets' records held at once.
     */
    public TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld,
                                 StreamShares shares, long maxHeldBytes) {
        this(delegate, settings, maxHeld, shares, maxHeldBytes, System::nanoTime);
    }

    TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld, LongSupplier nanoTime) {
        this(delegate, settings, maxHeld, StreamShares.off(), Long.MAX_VALUE, nanoTime);
    }

    TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld,
                          StreamShares shares, long maxHeldBytes, LongSupplier nanoTime) {
        this(delegate, settings, maxHeld, shares, maxHeldBytes, 1, imei -> 0, nanoTime);
    }

    /**
     * As above, over {@code partitions} streams (each with its share of the caps); {@code partitionOf}
     * gives a device's partition.
     */
    public TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld,
                                 StreamShares shares, long maxHeldBytes, int partitions,
                                 ToIntFunction<Imei> partitionOf) {
        this(delegate, settings, maxHeld, shares, maxHeldBytes, partitions, partitionOf, System::nanoTime);
    }

    TelemetryBackpressure(TelemetryWriter delegate, StreamRetentionSettings settings, int maxHeld,
                          StreamShares shares, long maxHeldBytes, int partitions, ToIntFunction<Imei> partitionOf,
                          LongSupplier nanoTime) {
        this.delegate = delegate;
        this.settings = settings;
        this.partitionSettings = settings.perPartition(partitions);
        this.partitionOf = partitionOf;
        this.full = new boolean[partitions];
        this.fullSinceNanos = new long[partitions];
        this.maxHeld = maxHeld;
        this.shares = shares;
        this.shareLog = new ShareHoldLog(shares);
        this.maxHeldBytes = maxHeldBytes;
        this.nanoTime = nanoTime;
        for (int i = 0; i < heldFor.length; i++) {
            heldFor[i] = new AtomicLong();
        }
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor loop) {
        // One lookup on the hot path: the share is checked and taken in the same step. The partition
        // is looked for only while one is full.
        int partition = engaged ? partition(imei) : -1;
        boolean partitionFull = partition >= 0 && full[partition];
        StreamShares.Hold hold = partitionFull ? StreamShares.Hold.STREAM_FULL
                : shares.admit(imei, connection.network(), packet.size());
        if (hold == StreamShares.Hold.NONE) {
            return delegate.write(imei, packet, receivedAtMillis, connection, loop);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new StreamFull("stopping while the telemetry stream is full"));
        }
        int packets = heldNow.incrementAndGet();
        long records = heldRecords.addAndGet(packet.size());
        long bytes = heldBytes.addAndGet(packet.recordBytes());
        if (packets > maxHeld || records > settings.maxHeldRecords() || bytes > maxHeldBytes) {
            heldNow.decrementAndGet();
            heldRecords.addAndGet(-packet.size());
            heldBytes.addAndGet(-packet.recordBytes());
            expiredTotal.incrementAndGet();
            return CompletableFuture.failedFuture(new StreamFull(why(hold) + " and "
                    + heldNow.get() + " packets (" + heldRecords.get() + " records, " + heldBytes.get()
                    + " bytes) already held"));
        }
        heldTotal.incrementAndGet();
        heldFor[hold.ordinal()].incrementAndGet();
        if (hold != StreamShares.Hold.STREAM_FULL) {
            shareLog.held();
        }
        // The event loop the packet came from, so that its write joins that loop's batch when released;
        // a copy of the packet, as its bytes were lent for this call only.
        Held h = new Held(imei, partition >= 0 ? partition : partition(imei), packet.copy(), receivedAtMillis,
                connection, loop, nanoTime.getAsLong());
        held.add(h);
        if (closed) {
            // close() may have drained the queue just before this packet went in.
            h.fail("stopping while the telemetry stream is full");
        }
        return h;
    }

    /** {@link #update(List, StreamSnapshot)} with one partition. */
    public void update(StreamSnapshot stream) {
        update(List.of(stream), stream);
    }

    /**
     * Takes the retention pass's view: a partition engages when its stream (or Redis's memory) reached
     * its cap while groups read it, and lets go once back below the resume marks, writing what was
     * held. Then fails packets held too long. Called on the retention thread only.
     *
     * @param partitions each partition's snapshot, partition 0 first
     * @param combined   them all as one, for the devices' shares
     */
    public void update(List<StreamSnapshot> partitions, StreamSnapshot combined) {
        long nowNanos = nanoTime.getAsLong();
        // Without groups nothing waits to be read (the stream is trimmed by length): no device has a share to exceed.
        shares.measured(combined.hasGroups() ? settings.measure(combined) : 0);
        boolean wasEngaged = engaged;
        boolean anyFull = false;
        for (int p = 0; p < full.length && p < partitions.size(); p++) {
            StreamSnapshot stream = partitions.get(p);
            if (!full[p] && partitionSettings.full(stream)) {
                full[p] = true;
                fullSinceNanos[p] = nowNanos;
                LOG.warn("telemetry stream full{}: {}; {}; packets are not acknowledged (devices keep their records) "
                        + "until the consumers catch up", where(p), state(stream), slowest(stream));
            } else if (full[p] && partitionSettings.clear(stream)) {
                full[p] = false;
                LOG.info("telemetry stream no longer full{}: {}; acknowledging again after {} s; writing {} held packets",
                        where(p), state(stream), TimeUnit.NANOSECONDS.toSeconds(nowNanos - fullSinceNanos[p]),
                        full.length == 1 ? heldNow.get() : "its");
            }
            anyFull |= full[p];
        }
        engaged = anyFull;
        if (anyFull && !wasEngaged) {
            engagedTotal.incrementAndGet();
            engagedAtNanos = nowNanos;
            remindedAtNanos = nowNanos;
        } else if (anyFull && nowNanos - remindedAtNanos >= REMIND_EVERY_NANOS) {
            remindedAtNanos = nowNanos;
            LOG.warn("telemetry stream still full for {} s{}: {}; {}; {} packets held",
                    TimeUnit.NANOSECONDS.toSeconds(nowNanos - engagedAtNanos), fullPartitions(),
                    state(combined, settings), slowest(combined), heldNow.get());
        }
        // Also picks up a packet that saw its partition full just before it cleared.
        releaseHeld();
        expireHeld();
        shareLog.maybeLog(nowNanos, this::heaviestHeld, heldFor[StreamShares.Hold.NETWORK_SHARE.ordinal()].get(),
                heldFor[StreamShares.Hold.DEVICE_SHARE.ordinal()].get());
    }

    private int partition(Imei imei) {
        return full.length == 1 ? 0 : partitionOf.applyAsInt(imei);
    }

    /** Which partition a log line is about; nothing with one partition. */
    private String where(int partition) {
        return full.length == 1 ? "" : " (partition " + partition + " of " + full.length + ")";
    }

    private String fullPartitions() {
        if (full.length == 1) {
            return "";
        }
        List<Integer> which = new ArrayList<>();
        for (int p = 0; p < full.length; p++) {
            if (full[p]) {
                which.add(p);
            }
        }
        return " (partitions " + which + " of " + full.length + ")";
    }

    /** Partitions whose stream is full now. */
    public int fullPartitionCount() {
        int n = 0;
        for (int p = 0; p < full.length; p++) {
            n += full[p] ? 1 : 0;
        }
        return n;
    }

    /** The heaviest device held now, for the log line; null when none. */
    private Imei heaviestHeld() {
        Imei heaviest = null;
        for (Held h : held) {
            if (!h.taken() && (heaviest == null || shares.estimate(h.imei) > shares.estimate(heaviest))) {
                heaviest = h.imei;
            }
        }
        return heaviest;
    }

    /** What a packet that could not even be held was waiting for, for its error. */
    private static String why(StreamShares.Hold hold) {
        return switch (hold) {
            case NETWORK_SHARE -> "network over its fair share of the telemetry stream";
            case DEVICE_SHARE -> "device over its fair share of the telemetry stream";
            default -> "telemetry stream full";
        };
    }

    private String state(StreamSnapshot stream) {
        return state(stream, partitionSettings);
    }

    private String state(StreamSnapshot stream, StreamRetentionSettings settings) {
        String memory = stream.maxMemory() > 0 ? String.format(", Redis memory %.0f %% of maxmemory (stop at %.0f %%, "
                + "TELEMETRY_MAX_REDIS_MEMORY)", 100 * stream.memoryFraction(), 100 * settings.maxRedisMemory()) : "";
        return settings.measure(stream) + " entries the consumer groups still need, cap " + settings.maxUnread()
                + (settings == this.settings || full.length == 1 ? " (TELEMETRY_MAX_UNREAD)"
                : " (TELEMETRY_MAX_UNREAD / TELEMETRY_PARTITIONS)") + memory;
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

    /** Writes the held packets whose devices are within their share, in the order they came. */
    private void releaseHeld() {
        Set<Imei> behind = new HashSet<>();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.taken()) {
                it.remove();
                continue;
            }
            // A device's later packets stay behind its first one still held (datagrams: several at once).
            if (behind.contains(h.imei) || full[h.partition]
                    || shares.admit(h.imei, h.connection.network(), h.packet.size()) != StreamShares.Hold.NONE) {
                behind.add(h.imei);
                continue;
            }
            if (!h.take()) {
                continue;
            }
            it.remove();
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

    /** Bytes of the records held now. */
    public long heldBytes() {
        return heldBytes.get();
    }

    /** Packets held since start because their device, or its network, was over its fair share of the stream. */
    public long shareHeldTotal() {
        return heldFor[StreamShares.Hold.NETWORK_SHARE.ordinal()].get()
                + heldFor[StreamShares.Hold.DEVICE_SHARE.ordinal()].get();
    }

    /** Packets held since start for {@code reason}. */
    public long heldTotal(StreamShares.Hold reason) {
        return heldFor[reason.ordinal()].get();
    }

    /** The shares the gate applies (metrics). */
    public StreamShares shares() {
        return shares;
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
    public final class Held extends CompletableFuture<Integer> implements HeldWrite {
        private final Imei imei;
        private final int partition;
        private final AvlPacketView packet;
        private final long receivedAtMillis;
        private final ResendGuard connection;
        private final EventExecutor loop;
        private final long heldAtNanos;
        private final AtomicBoolean out = new AtomicBoolean();

        private Held(Imei imei, int partition, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                     EventExecutor loop, long heldAtNanos) {
            this.imei = imei;
            this.partition = partition;
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
            heldBytes.addAndGet(-packet.recordBytes());
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

        @Override
        public void abandon() {
            fail("the device's connection closed while its packet was held");
        }
    }
}
