package org.fleetpipe.teltonika.codec.udp;

import io.netty.buffer.ByteBuf;

/** The server's answer to a UDP datagram: which packet, and how many records it accepted. */
public record UdpAck(int packetId, int avlPacketId, int records) {

    /** u16 length (5), u16 packet id, u8 0x01, u8 AVL packet id, u8 records accepted. */
    public static final int BYTES = 7;

    public ByteBuf writeTo(ByteBuf out) {
        out.writeShort(BYTES - 2);
        out.writeShort(packetId);
        out.writeByte(0x01);
        out.writeByte(avlPacketId);
        return out.writeByte(records);
    }

    /** Reads an ACK datagram; null when the bytes are not one. */
    public static UdpAck read(ByteBuf in) {
        int at = in.readerIndex();
        if (in.readableBytes() != BYTES || in.getUnsignedShort(at) != BYTES - 2) {
            return null;
        }
        return new UdpAck(in.getUnsignedShort(at + 2), in.getUnsignedByte(at + 5), in.getUnsignedByte(at + 6));
    }
}
