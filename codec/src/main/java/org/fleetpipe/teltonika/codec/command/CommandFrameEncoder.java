package org.fleetpipe.teltonika.codec.command;

import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.frame.TcpFrameWriter;

/** Writes Codec 12, 13, 14 and 15 frames (server commands, and device frames for tests and the simulator). */
public final class CommandFrameEncoder {

    private CommandFrameEncoder() {
    }

    public static ByteBuf writeTcpFrame(ByteBuf out, CommandFrame frame) {
        int start = TcpFrameWriter.begin(out);
        writeBody(out, frame);
        return TcpFrameWriter.end(out, start);
    }

    public static ByteBuf writeBody(ByteBuf out, CommandFrame frame) {
        out.writeByte(frame.codec().wire());
        out.writeByte(1);
        out.writeByte(frame.type());
        boolean hasTimestamp = CommandFrame.carriesTimestamp(frame.codec());
        boolean hasImei = CommandFrame.carriesImei(frame.codec());
        out.writeInt((hasTimestamp ? 4 : 0) + (hasImei ? 8 : 0) + frame.payloadLength());
        // Codec 15 puts the timestamp before the IMEI.
        if (hasTimestamp) {
            out.writeInt((int) frame.timestampSeconds());
        }
        if (hasImei) {
            out.writeLong(CommandFrameDecoder.imeiToWire(frame.imei()));
        }
        out.writeBytes(frame.payload());
        return out.writeByte(1);
    }
}
