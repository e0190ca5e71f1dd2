package org.fleetpipe.teltonika.simulator.device;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;

/**
 * A device's memory of records not yet acknowledged, oldest first. Packets are cut from the
 * head and stay here until their ACK, so a lost or miscounted packet is resent with the very
 * same records. Bounded: when full, new records are dropped (and counted), as a tracker whose
 * memory is full loses what it cannot store. Not thread-safe: one event loop owns it.
 */
public final class RecordBacklog {

    private final int capacity;
    private final ArrayDeque<AvlRecord> records = new ArrayDeque<>();
    private int inFlight;
    /** Head records that went out at least once: a packet that takes them again is a resend. */
    private int sentBefore;

    public RecordBacklog(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("backlog capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
    }

    /** Appends what fits; returns how many were taken (the rest are lost). */
    public int add(List<AvlRecord> batch) {
        int taken = Math.min(batch.size(), capacity - records.size());
        for (int i = 0; i < taken; i++) {
            records.addLast(batch.get(i));
        }
        return taken;
    }

    /**
     * Cuts the next packet from the head: at least one record, then more while the packet stays
     * within {@code maxRecords} and {@code maxBodyBytes}. Null when a packet is already in flight
     * or nothing is waiting.
     */
    public BacklogPacket take(CodecId codec, int maxRecords, int maxBodyBytes) {
        if (inFlight > 0 || records.isEmpty()) {
            return null;
        }
        List<AvlRecord> packet = new ArrayList<>(Math.min(maxRecords, records.size()));
        int bytes = EncodedSize.BODY_OVERHEAD;
        Iterator<AvlRecord> it = records.iterator();
        while (it.hasNext() && packet.size() < maxRecords) {
            AvlRecord next = it.next();
            int size = EncodedSize.record(codec, next);
            if (!packet.isEmpty() && bytes + size > maxBodyBytes) {
                break;
            }
            packet.add(next);
            bytes += size;
        }
        inFlight = packet.size();
        int resent = Math.min(inFlight, sentBefore);
        sentBefore = Math.max(sentBefore, inFlight);
        return new BacklogPacket(packet, resent);
    }

    /** The packet in flight was acknowledged: its records are forgotten; returns them. */
    public List<AvlRecord> acknowledge() {
        List<AvlRecord> acked = new java.util.ArrayList<>(inFlight);
        for (int i = 0; i < inFlight; i++) {
            acked.add(records.removeFirst());
        }
        sentBefore -= inFlight;
        inFlight = 0;
        return acked;
    }

    /** The packet in flight got no ACK or a wrong one: its records wait to be sent again. */
    public void returnInFlight() {
        inFlight = 0;
    }

    public boolean hasInFlight() {
        return inFlight > 0;
    }

    public int inFlightCount() {
        return inFlight;
    }

    /** Records waiting that are not in flight. */
    public boolean hasUnsent() {
        return records.size() > inFlight;
    }

    public int size() {
        return records.size();
    }

    public boolean isEmpty() {
        return records.isEmpty();
    }
}
