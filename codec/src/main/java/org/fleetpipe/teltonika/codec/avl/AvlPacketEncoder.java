package org.fleetpipe.teltonika.codec.avl;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.fleetpipe.teltonika.codec.frame.TcpFrameWriter;

/** Writes AVL packets: the body alone (for UDP) or a whole TCP frame; the reverse of the decoder. */
public final class AvlPacketEncoder {

    private AvlPacketEncoder() {
    }

    /** Preamble, length, body and CRC. */
    public static ByteBuf writeTcpFrame(ByteBuf out, AvlPacket packet) {
        int start = TcpFrameWriter.begin(out);
        writeBody(out, packet);
        return TcpFrameWriter.end(out, start);
    }

    /** Codec id through number of data 2. */
    public static ByteBuf writeBody(ByteBuf out, AvlPacket packet) {
        RecordLayout layout = RecordLayout.of(packet.codec());
        if (packet.size() > 255) {
            throw new IllegalArgumentException("at most 255 records per packet");
        }
        out.writeByte(packet.codec().wire());
        out.writeByte(packet.size());
        for (AvlRecord record : packet.records()) {
            writeRecord(out, layout, record);
        }
        return out.writeByte(packet.size());
    }

    private static void writeRecord(ByteBuf out, RecordLayout layout, AvlRecord r) {
        if (r.hasGenerationType() != layout.generationType) {
            throw new IllegalArgumentException("generation type is for Codec 16 records only, and required there");
        }
        GpsElement gps = r.gps();
        out.writeLong(r.timestamp());
        out.writeByte(r.priority());
        out.writeInt(gps.longitude());
        out.writeInt(gps.latitude());
        out.writeShort(gps.altitude());
        out.writeShort(gps.angle());
        out.writeByte(gps.satellites());
        out.writeShort(gps.speed());
        writeUnsigned(out, layout, layout.eventIdWidth, r.eventIoId());
        if (layout.generationType) {
            out.writeByte(r.generationType());
        }
        List<IoElement> io = r.io();
        writeUnsigned(out, layout, layout.totalCountWidth, io.size());
        for (int width = 1; width <= 8; width <<= 1) {
            int n = 0;
            for (IoElement e : io) {
                if (e instanceof IoElement.Fixed f && f.width() == width) {
                    n++;
                }
            }
            writeUnsigned(out, layout, layout.groupCountWidth, n);
            for (IoElement e : io) {
                if (e instanceof IoElement.Fixed f && f.width() == width) {
                    writeUnsigned(out, layout, layout.ioIdWidth, f.id());
                    writeFixed(out, width, f.value());
                }
            }
        }
        int variables = 0;
        for (IoElement e : io) {
            if (e instanceof IoElement.Variable) {
                variables++;
            }
        }
        if (!layout.variableGroup) {
            if (variables > 0) {
                throw new IllegalArgumentException("variable-length IO needs Codec 8E");
            }
            return;
        }
        out.writeShort(variables);
        for (IoElement e : io) {
            if (e instanceof IoElement.Variable v) {
                out.writeShort(v.id());
                if (v.length() > 0xFFFF) {
                    throw new IllegalArgumentException("variable IO longer than 65535 bytes");
                }
                out.writeShort(v.length());
                out.writeBytes(v.value());
            }
        }
    }

    private static void writeUnsigned(ByteBuf out, RecordLayout layout, int width, int value) {
        if (value < 0 || value > layout.maxUnsigned(width)) {
            throw new IllegalArgumentException(value + " does not fit " + width + " byte(s) in " + layout);
        }
        if (width == 1) {
            out.writeByte(value);
        } else {
            out.writeShort(value);
        }
    }

    private static void writeFixed(ByteBuf out, int width, long value) {
        switch (width) {
            case 1 -> out.writeByte((int) value);
            case 2 -> out.writeShort((int) value);
            case 4 -> out.writeInt((int) value);
            default -> out.writeLong(value);
        }
    }
}
