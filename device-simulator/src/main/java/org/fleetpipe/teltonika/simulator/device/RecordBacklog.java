package org.fleetpipe.teltonika.simulator.device;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;

/**
 * A device's memory of records not yet acknowledged, oldest first, kept encoded as they go on
 * the wire: a packet is the head's bytes between a header and the count, with no record objects
 * built or encoded on the way (that was most of the load generator's CPU). Packets are cut from
 * the head and stay here until their ACK, so a lost or miscounted packet is resent with the very
 * same records. Bounded: when full, new records are dropped (and counted), as a tracker whose
 * memory is full loses what it cannot store. Not thread-safe: one event loop owns it.
 */
public final class RecordBacklog {

    private static final AvlPacketDecoder DECODER = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
    private static final int INITIAL_BYTES = 1024;

    private final int capacity;
    /**
     * The records' bytes, head at the reader index; grows as needed, starts small (thousands of
     * devices). A plain heap buffer, built rather than allocated, so the leak detector does not
     * track it: it is never released, the garbage collector takes it with its device.
     */
    private final ByteBuf bytes = new UnpooledHeapByteBuf(UnpooledByteBufAllocator.DEFAULT, INITIAL_BYTES,
            Integer.MAX_VALUE);
    /** Each record's length, a ring from {@code first}. */
    private int[] lengths = new int[16];
    private int first;
    private int count;
    private int recordStart = -1;
    private int inFlight;
    private int inFlightBytes;
    /** Head records that went out at least once: a packet that takes them again is a resend. */
    private int sentBefore;
    private int inFlightResent;

    public RecordBacklog(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("backlog capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
    }

    /** Where the next record is to be written; {@link #closeRecord()} then keeps or drops it. */
    public ByteBuf openRecord() {
        if (bytes.readerIndex() > 0 && bytes.readerIndex() >= bytes.writerIndex() - bytes.readerIndex()) {
            bytes.discardReadBytes();
        }
        recordStart = bytes.writerIndex();
        return bytes;
    }

    /** Keeps the record written since {@link #openRecord()} if there is room; returns whether it did. */
    public boolean closeRecord() {
        int length = bytes.writerIndex() - recordStart;
        if (recordStart < 0 || length <= 0) {
            throw new IllegalStateException("no record written since openRecord()");
        }
        int start = recordStart;
        recordStart = -1;
        if (count >= capacity) {
            bytes.writerIndex(start);
            return false;
        }
        if (count == lengths.length) {
            int[] grown = new int[Math.min(capacity, lengths.length * 2)];
            for (int i = 0; i < count; i++) {
                grown[i] = lengths[(first + i) % lengths.length];
            }
            lengths = grown;
            first = 0;
        }
        lengths[(first + count) % lengths.length] = length;
        count++;
        return true;
    }

    /**
     * Cuts the next packet from the head: at least one record, then more while the packet stays
     * within {@code maxRecords} and {@code maxBodyBytes} (codec id through number of data 2).
     * Returns how many records it took: 0 when a packet is already in flight or nothing waits.
     */
    public int take(int maxRecords, int maxBodyBytes) {
        if (inFlight > 0 || count == 0) {
            return 0;
        }
        int taken = 0;
        int body = EncodedSize.BODY_OVERHEAD;
        while (taken < count && taken < maxRecords) {
            int size = lengths[(first + taken) % lengths.length];
            if (taken > 0 && body + size > maxBodyBytes) {
                break;
            }
            body += size;
            taken++;
        }
        inFlight = taken;
        inFlightBytes = body - EncodedSize.BODY_OVERHEAD;
        inFlightResent = Math.min(inFlight, sentBefore);
        sentBefore = Math.max(sentBefore, inFlight);
        return taken;
    }

    /** How many records of the packet in flight were sent before and not acknowledged. */
    public int inFlightResent() {
        return inFlightResent;
    }

    /** Bytes of the AVL body of the packet in flight: codec id, number of data 1, records, number of data 2. */
    public int inFlightBodyBytes() {
        return EncodedSize.BODY_OVERHEAD + inFlightBytes;
    }

    /** Appends the AVL body of the packet in flight to {@code out}. */
    public ByteBuf writeInFlightBody(ByteBuf out, CodecId codec) {
        if (inFlight == 0) {
            throw new IllegalStateException("no packet in flight");
        }
        out.writeByte(codec.wire());
        out.writeByte(inFlight);
        out.writeBytes(bytes, bytes.readerIndex(), inFlightBytes);
        return out.writeByte(inFlight);
    }

    /** The packet in flight as records (tests, UDP, the acknowledged-records listener): decoded, so it costs. */
    public AvlPacket inFlightPacket(CodecId codec) {
        ByteBuf body = writeInFlightBody(Unpooled.buffer(inFlightBodyBytes()), codec);
        try {
            return DECODER.decode(body);
        } finally {
            body.release();
        }
    }

    /** The packet in flight was acknowledged: its records are forgotten. */
    public void acknowledge() {
        bytes.skipBytes(inFlightBytes);
        first = (first + inFlight) % lengths.length;
        count -= inFlight;
        sentBefore -= inFlight;
        inFlight = 0;
        inFlightBytes = 0;
        if (count == 0) {
            bytes.clear();
            first = 0;
        }
    }

    /** The packet in flight got no ACK or a wrong one: its records wait to be sent again. */
    public void returnInFlight() {
        inFlight = 0;
        inFlightBytes = 0;
    }

    public boolean hasInFlight() {
        return inFlight > 0;
    }

    public int inFlightCount() {
        return inFlight;
    }

    /** Records waiting that are not in flight. */
    public boolean hasUnsent() {
        return count > inFlight;
    }

    public int size() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }
}
