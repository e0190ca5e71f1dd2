package org.fleetpipe.teltonika.codec.udp;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;

/** Decodes a UDP datagram: length, packet id, not-used byte, AVL packet id, IMEI, AVL body. */
public final class UdpPacketDecoder {

    /** u16 length, u16 packet id, u8 not used, u8 AVL packet id, u16 IMEI length. */
    static final int HEADER_BYTES = 8;
    /** Enough for any login text the limits allow; peekHeader runs without limits at hand. */
    private static final int MAX_PEEKED_IMEI = 255;

    private final DecodeLimits limits;
    private final AvlPacketDecoder avl;

    public UdpPacketDecoder(DecodeLimits limits) {
        this.limits = limits;
        this.avl = new AvlPacketDecoder(limits);
    }

    /** Decodes exactly the readable bytes of {@code datagram}; the buffer's indices are not moved. */
    public UdpPacket decode(ByteBuf datagram) {
        int length = datagram.readableBytes();
        if (length > limits.maxFrameBytes()) {
            throw new CodecException(Reason.FRAME_TOO_LARGE,
                    "datagram of " + length + " bytes, limit " + limits.maxFrameBytes());
        }
        if (length < HEADER_BYTES) {
            throw new CodecException(Reason.TRUNCATED, "datagram of " + length + " bytes");
        }
        int at = datagram.readerIndex();
        int declared = datagram.getUnsignedShort(at);
        if (declared != length - 2) {
            throw new CodecException(declared > length - 2 ? Reason.TRUNCATED : Reason.TRAILING_BYTES,
                    "length field " + declared + ", datagram holds " + (length - 2));
        }
        int packetId = datagram.getUnsignedShort(at + 2);
        int avlPacketId = datagram.getUnsignedByte(at + 5);
        int imeiLength = datagram.getUnsignedShort(at + 6);
        if (imeiLength == 0 || imeiLength > limits.maxLoginBytes()) {
            throw new CodecException(Reason.BAD_LOGIN, "IMEI length " + imeiLength);
        }
        if (HEADER_BYTES + imeiLength > length) {
            throw new CodecException(Reason.TRUNCATED, "IMEI runs past the datagram");
        }
        String imei = datagram.toString(at + HEADER_BYTES, imeiLength, StandardCharsets.ISO_8859_1);
        int bodyAt = at + HEADER_BYTES + imeiLength;
        return new UdpPacket(packetId, avlPacketId, imei, avl.decode(datagram.slice(bodyAt, at + length - bodyAt)));
    }

    /**
     * The header fields needed to answer a datagram whose body failed to decode; null when even
     * the header is unreadable.
     */
    public static UdpHeader peekHeader(ByteBuf datagram) {
        if (datagram.readableBytes() < HEADER_BYTES) {
            return null;
        }
        int at = datagram.readerIndex();
        int imeiLength = datagram.getUnsignedShort(at + 6);
        String imei = imeiLength <= datagram.readableBytes() - HEADER_BYTES && imeiLength <= MAX_PEEKED_IMEI
                ? datagram.toString(at + HEADER_BYTES, imeiLength, StandardCharsets.ISO_8859_1) : null;
        return new UdpHeader(datagram.getUnsignedShort(at + 2), datagram.getUnsignedByte(at + 5), imei);
    }

    /** What the header says, read without trusting the rest. */
    public record UdpHeader(int packetId, int avlPacketId, String imeiText) {
    }
}
