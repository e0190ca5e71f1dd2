package org.fleetpipe.teltonika.codec.udp;

import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;

/** Writes UDP datagrams, the device side: for tests and the simulator. */
public final class UdpPacketEncoder {

    private UdpPacketEncoder() {
    }

    public static ByteBuf writeDatagram(ByteBuf out, UdpPacket packet) {
        int start = out.writerIndex();
        out.writeShort(0);
        out.writeShort(packet.packetId());
        out.writeByte(0x01);
        out.writeByte(packet.avlPacketId());
        out.writeShort(packet.imeiText().length());
        for (int i = 0; i < packet.imeiText().length(); i++) {
            out.writeByte(packet.imeiText().charAt(i));
        }
        AvlPacketEncoder.writeBody(out, packet.packet());
        int length = out.writerIndex() - start - 2;
        if (length > 0xFFFF) {
            out.writerIndex(start);
            throw new IllegalArgumentException("datagram of " + length + " bytes does not fit the u16 length field");
        }
        return out.setShort(start, length);
    }
}
