package org.fleetpipe.teltonika.codec.command;

import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.frame.TcpFrameWriter;

/** Writes Codec 12, 13 and 14 frames (server commands, and device replies for tests and the simulator). */
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
        int extra = switch (frame.codec()) {
            case CODEC_14 -> 8;
            case CODEC_13 -> 4;
            default -> 0;
        };
        out.writeInt(extra + frame.payloadLength());
        if (frame.codec() == CodecId.CODEC_14) {
            out.writeLong(CommandFrameDecoder.imeiToWire(frame.imei()));
        } else if (frame.codec() == CodecId.CODEC_13) {
            out.writeInt((int) frame.timestampSeconds());
        }
        out.writeBytes(frame.payload());
        return out.writeByte(1);
    }
}
