package org.fleetpipe.teltonika.codec.frame;

import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.Crc16Ibm;

/** Wraps a body that the caller writes in between into preamble, length and CRC. */
public final class TcpFrameWriter {

    private TcpFrameWriter() {
    }

    /** Writes preamble and a length placeholder; returns the frame's start index for {@link #end}. */
    public static int begin(ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeInt(0);
        return start;
    }

    /** Patches the length and appends the CRC over everything written since {@link #begin}. */
    public static ByteBuf end(ByteBuf out, int start) {
        int bodyStart = start + DataFrame.HEADER_BYTES;
        int bodyLength = out.writerIndex() - bodyStart;
        out.setInt(start + 4, bodyLength);
        return out.writeInt(Crc16Ibm.compute(out, bodyStart, bodyLength));
    }
}
