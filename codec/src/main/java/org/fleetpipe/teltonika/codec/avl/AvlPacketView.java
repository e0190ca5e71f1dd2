package org.fleetpipe.teltonika.codec.avl;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;

/**
 * An AVL packet checked by {@link AvlPacketDecoder#view} and read in place, through an
 * {@link AvlRecordCursor}, with no object per record. It does not own its bytes: it is valid only
 * while the buffer it was made from is, so whoever keeps it past that takes a {@link #copy}.
 */
public final class AvlPacketView {

    /** What the wire itself allows: a packet made as objects is viewed whatever limits a server set. */
    private static final AvlPacketDecoder ANY = new AvlPacketDecoder(new DecodeLimits(16 * 1024 * 1024, 255, 65535,
            65535, 64));

    private final CodecId codec;
    private final int size;
    private final ByteBuf bytes;
    private final int recordsAt;
    private final int recordsLength;

    AvlPacketView(CodecId codec, int size, ByteBuf bytes, int recordsAt, int recordsLength) {
        this.codec = codec;
        this.size = size;
        this.bytes = bytes;
        this.recordsAt = recordsAt;
        this.recordsLength = recordsLength;
    }

    /** The packet's body bytes in a heap buffer of its own, viewed (tests, tools, and packets made as objects). */
    public static AvlPacketView of(AvlPacket packet) {
        ByteBuf body = AvlPacketEncoder.writeBody(Unpooled.buffer(), packet);
        return ANY.view(body);
    }

    public CodecId codec() {
        return codec;
    }

    /** Records in the packet. */
    public int size() {
        return size;
    }

    /** The same packet in a heap buffer of its own: what is kept after the original bytes go back to their pool. */
    public AvlPacketView copy() {
        ByteBuf own = Unpooled.buffer(recordsLength + 3);
        own.writeByte(codec.wire()).writeByte(size).writeBytes(bytes, recordsAt, recordsLength).writeByte(size);
        return new AvlPacketView(codec, size, own, 2, recordsLength);
    }

    /** The records as objects (tests and tools; the server's path reads them with a cursor). */
    public AvlPacket toPacket() {
        return ANY.decode(copy().bytes);
    }

    ByteBuf bytes() {
        return bytes;
    }

    int recordsAt() {
        return recordsAt;
    }

    int recordsLength() {
        return recordsLength;
    }

    @Override
    public String toString() {
        return "AvlPacketView[codec=" + codec.label() + ", records=" + size + "]";
    }
}
