package org.fleetpipe.teltonika.codec.avl;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;

/**
 * An AVL packet checked by {@link AvlPacketDecoder#view} and read in place, through an
 * {@link AvlRecordCursor}, with no object per record. It does not own its bytes: made in an
 * {@link AvlScratch}, it is valid only until that scratch is used again, so whoever keeps it past
 * that keeps a {@link #copy}.
 */
public final class AvlPacketView {

    /** What the wire itself allows: a packet made as objects is viewed whatever limits a server set. */
    private static final AvlPacketDecoder ANY = new AvlPacketDecoder(new DecodeLimits(16 * 1024 * 1024, 255, 65535,
            65535, 64));

    private final CodecId codec;
    private final int size;
    private final byte[] bytes;
    private final int recordsAt;
    private final int recordsLength;

    AvlPacketView(CodecId codec, int size, byte[] bytes, int recordsAt, int recordsLength) {
        this.codec = codec;
        this.size = size;
        this.bytes = bytes;
        this.recordsAt = recordsAt;
        this.recordsLength = recordsLength;
    }

    /** The packet's body encoded into an array of its own, viewed (tests, tools, and packets made as objects). */
    public static AvlPacketView of(AvlPacket packet) {
        ByteBuf body = AvlPacketEncoder.writeBody(Unpooled.buffer(), packet);
        return ANY.view(Arrays.copyOf(body.array(), body.readableBytes()), 0, body.readableBytes());
    }

    public CodecId codec() {
        return codec;
    }

    /** Records in the packet. */
    public int size() {
        return size;
    }

    /** Bytes of its records: what a {@link #copy} keeps. */
    public int recordBytes() {
        return recordsLength;
    }

    /** The same packet in an array of its own: what is kept after its scratch is used again. */
    public AvlPacketView copy() {
        return new AvlPacketView(codec, size, Arrays.copyOfRange(bytes, recordsAt - 2, recordsAt + recordsLength + 1), 2,
                recordsLength);
    }

    /** The records as objects (tests and tools; the server's path reads them with a cursor). */
    public AvlPacket toPacket() {
        return ANY.decode(Unpooled.wrappedBuffer(bytes, recordsAt - 2, recordsLength + 3));
    }

    byte[] bytes() {
        return bytes;
    }

    int recordsAt() {
        return recordsAt;
    }

    @Override
    public String toString() {
        return "AvlPacketView[codec=" + codec.label() + ", records=" + size + "]";
    }
}
