package org.fleetpipe.teltonika.server.stream;

import io.netty.util.concurrent.EventExecutor;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;

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
 *
 * <p>The gate is {@link FullPartitions} and {@link StreamShares}; the held packets' books are
 * {@link HeldPackets}. A packet the gate lets through costs one volatile read and the share's
 * check: nothing is made for it here.
 */
public final class TelemetryBackpressure implements TelemetryWriter {

    private final TelemetryWriter delegate;
    private final StreamRetentionSettings settings;
    private final StreamShares shares;
    private final FullPartitions full;
    private final HeldPackets held;
    private final ShareHoldLog shareLog;
    private final LongSupplier nanoTime;

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
        this.shares = shares;
        this.full = new FullPartitions(settings, partitions, partitionOf);
        this.shareLog = new ShareHoldLog(shares);
        this.held = new HeldPackets(delegate, maxHeld, settings.maxHeldRecords(), maxHeldBytes, shareLog, nanoTime);
        this.nanoTime = nanoTime;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor loop) {
        // One lookup on the hot path: the share is checked and taken in the same step. The partition
        // is looked for only while one is full.
        int partition = full.partitionIfEngaged(imei);
        StreamShares.Hold hold = partition >= 0 && full.full(partition) ? StreamShares.Hold.STREAM_FULL
                : shares.admit(imei, connection.network(), packet.size());
        if (hold == StreamShares.Hold.NONE) {
            return delegate.write(imei, packet, receivedAtMillis, connection, loop);
        }
        return held.hold(hold, imei, partition >= 0 ? partition : full.partitionOf(imei), packet, receivedAtMillis,
                connection, loop);
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
        full.update(partitions, combined, nowNanos, held.packets());
        // Also picks up a packet that saw its partition full just before it cleared.
        held.release(full, shares);
        expireHeld();
        shareLog.maybeLog(nowNanos, () -> held.heaviest(shares), held.total(StreamShares.Hold.NETWORK_SHARE),
                held.total(StreamShares.Hold.DEVICE_SHARE));
    }

    /** Partitions whose stream is full now. */
    public int fullPartitionCount() {
        return full.count();
    }

    /** Fails packets held longer than {@code maxHold}, and forgets abandoned ones. Retention thread only. */
    public void expireHeld() {
        held.expire(settings.maxHold());
    }

    /** Fails every held packet (no ACK; the devices resend to another replica): the server is stopping. */
    public void close() {
        held.close();
    }

    public boolean engaged() {
        return full.engaged();
    }

    /** Packets held now. */
    public int held() {
        return held.packets();
    }

    /** Records held now. */
    public long heldRecords() {
        return held.records();
    }

    /** Bytes of the records held now. */
    public long heldBytes() {
        return held.bytes();
    }

    /** Packets held since start because their device, or its network, was over its fair share of the stream. */
    public long shareHeldTotal() {
        return held.total(StreamShares.Hold.NETWORK_SHARE) + held.total(StreamShares.Hold.DEVICE_SHARE);
    }

    /** Packets held since start for {@code reason}. */
    public long heldTotal(StreamShares.Hold reason) {
        return held.total(reason);
    }

    /** The shares the gate applies (metrics). */
    public StreamShares shares() {
        return shares;
    }

    /** Packets held since start. */
    public long heldTotal() {
        return held.total();
    }

    /** Packets that failed unwritten because the stream stayed full (held too long, or too many held). */
    public long expiredTotal() {
        return held.expiredTotal();
    }

    /** How often back-pressure engaged since start. */
    public long engagedTotal() {
        return full.engagedTotal();
    }
}
