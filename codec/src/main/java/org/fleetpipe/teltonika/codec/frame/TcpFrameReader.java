package org.fleetpipe.teltonika.codec.frame;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Crc16Ibm;
import org.fleetpipe.teltonika.codec.DecodeLimits;

/**
 * Cuts frames from a TCP byte stream that may be split or coalesced anywhere. It keeps no state
 * between calls: it peeks from {@code readerIndex()} and consumes only a complete, valid frame,
 * so on an exception the input is untouched and the caller decides what to do with it.
 */
public final class TcpFrameReader {

    /** Codec id, number of data 1, number of data 2: the least a data body can hold. */
    private static final int MIN_BODY_BYTES = 3;
    private static final int PING = 0xFF;

    private final DecodeLimits limits;

    public TcpFrameReader(DecodeLimits limits) {
        this.limits = limits;
    }

    /** The next complete frame, or null when more bytes are needed. */
    public Frame tryRead(ByteBuf in) {
        int readable = in.readableBytes();
        if (readable == 0) {
            return null;
        }
        int start = in.readerIndex();
        int first = in.getUnsignedByte(start);
        if (first == PING) {
            in.skipBytes(1);
            return PingFrame.INSTANCE;
        }
        if (first != 0) {
            // Both a login length (at most maxLoginBytes < 256) and a preamble start with 0x00.
            throw new CodecException(Reason.BAD_PREAMBLE, String.format("frame starts with 0x%02X", first));
        }
        if (readable < 2) {
            return null;
        }
        int loginLength = in.getUnsignedShort(start);
        if (loginLength != 0) {
            return readLogin(in, start, loginLength);
        }
        if (readable < 4) {
            return null;
        }
        if (in.getUnsignedShort(start + 2) != 0) {
            throw new CodecException(Reason.BAD_PREAMBLE, "preamble is not four zero bytes");
        }
        if (readable < DataFrame.HEADER_BYTES) {
            return null;
        }
        long bodyLength = in.getUnsignedInt(start + 4);
        long frameLength = bodyLength + DataFrame.HEADER_BYTES + DataFrame.CRC_BYTES;
        // Decided on the header alone, before a single body byte is buffered.
        if (frameLength > limits.maxFrameBytes()) {
            throw new CodecException(Reason.FRAME_TOO_LARGE,
                    "declared " + frameLength + " bytes, limit " + limits.maxFrameBytes());
        }
        if (bodyLength < MIN_BODY_BYTES) {
            throw new CodecException(Reason.BAD_LENGTH, "declared body of " + bodyLength + " bytes");
        }
        if (readable < frameLength) {
            return null;
        }
        int bodyStart = start + DataFrame.HEADER_BYTES;
        long sent = in.getUnsignedInt(bodyStart + (int) bodyLength);
        int computed = Crc16Ibm.compute(in, bodyStart, (int) bodyLength);
        if (sent != computed) {
            throw new CodecException(Reason.BAD_CRC,
                    String.format("CRC field 0x%08X, computed 0x%04X", sent, computed));
        }
        CodecId codec = CodecId.fromWire(in.getUnsignedByte(bodyStart));
        DataFrame frame = new DataFrame(codec, in.retainedSlice(start, (int) frameLength));
        in.skipBytes((int) frameLength);
        return frame;
    }

    private Frame readLogin(ByteBuf in, int start, int length) {
        if (length > limits.maxLoginBytes()) {
            throw new CodecException(Reason.BAD_LOGIN,
                    "login length " + length + ", limit " + limits.maxLoginBytes());
        }
        if (in.readableBytes() < 2 + length) {
            return null;
        }
        String text = in.toString(start + 2, length, StandardCharsets.ISO_8859_1);
        in.skipBytes(2 + length);
        return new LoginFrame(text);
    }
}
