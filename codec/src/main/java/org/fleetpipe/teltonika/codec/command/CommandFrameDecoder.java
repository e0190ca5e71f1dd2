package org.fleetpipe.teltonika.codec.command;

import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;

/** Decodes the body (codec id through quantity 2) of a Codec 12, 13, 14 or 15 frame. */
public final class CommandFrameDecoder {

    /** Codec id, quantity 1, type, u32 size ... quantity 2. */
    private static final int OVERHEAD = 1 + 1 + 1 + 4 + 1;
    private static final int IMEI_BYTES = 8;
    private static final int TIMESTAMP_BYTES = 4;

    private final DecodeLimits limits;

    public CommandFrameDecoder(DecodeLimits limits) {
        this.limits = limits;
    }

    /** Decodes exactly the readable bytes of {@code body}; the buffer's indices are not moved. */
    public CommandFrame decode(ByteBuf body) {
        int length = body.readableBytes();
        if (length < OVERHEAD) {
            throw new CodecException(Reason.TRUNCATED, "command body of " + length + " bytes");
        }
        int at = body.readerIndex();
        CodecId codec = CodecId.fromWire(body.getUnsignedByte(at));
        if (codec.isAvl()) {
            throw new CodecException(Reason.UNKNOWN_CODEC, "codec " + codec.label() + " is not a command codec");
        }
        int quantity1 = body.getUnsignedByte(at + 1);
        int quantity2 = body.getUnsignedByte(at + length - 1);
        if (quantity1 != 1 || quantity2 != 1) {
            throw new CodecException(Reason.BAD_COMMAND_FRAME,
                    "command quantities " + quantity1 + " and " + quantity2 + ", expected 1 and 1");
        }
        int type = body.getUnsignedByte(at + 2);
        long size = body.getUnsignedInt(at + 3);
        if (size != length - OVERHEAD) {
            throw new CodecException(size > length - OVERHEAD ? Reason.TRUNCATED : Reason.TRAILING_BYTES,
                    "size field " + size + ", body holds " + (length - OVERHEAD));
        }
        if (size > limits.maxFrameBytes()) {
            throw new CodecException(Reason.LIMIT_EXCEEDED, "command of " + size + " bytes");
        }
        int payloadAt = at + 7;
        int payloadLength = (int) size;
        String imei = null;
        long timestamp = -1;
        boolean hasTimestamp = CommandFrame.carriesTimestamp(codec);
        boolean hasImei = CommandFrame.carriesImei(codec);
        int prefix = (hasTimestamp ? TIMESTAMP_BYTES : 0) + (hasImei ? IMEI_BYTES : 0);
        if (payloadLength < prefix) {
            throw new CodecException(Reason.BAD_COMMAND_FRAME, "Codec " + codec.label() + " frame without its "
                    + (hasTimestamp ? "timestamp" : "") + (hasTimestamp && hasImei ? " and " : "")
                    + (hasImei ? "8-byte IMEI" : ""));
        }
        // Codec 15 puts the timestamp before the IMEI.
        if (hasTimestamp) {
            timestamp = body.getUnsignedInt(payloadAt);
            payloadAt += TIMESTAMP_BYTES;
        }
        if (hasImei) {
            imei = imeiFromWire(codec, body.getLong(payloadAt));
            payloadAt += IMEI_BYTES;
        }
        payloadLength -= prefix;
        byte[] payload = new byte[payloadLength];
        body.getBytes(payloadAt, payload);
        return new CommandFrame(codec, type, imei, timestamp, payload);
    }

    /** Codecs 14 and 15 write the IMEI as 16 hex digits that read as the decimal IMEI with a leading 0. */
    static String imeiFromWire(CodecId codec, long bits) {
        String hex = String.format("%016x", bits);
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (c < '0' || c > '9') {
                throw new CodecException(Reason.BAD_COMMAND_FRAME,
                        "Codec " + codec.label() + " IMEI field is not decimal: " + hex);
            }
        }
        if (hex.charAt(0) != '0') {
            throw new CodecException(Reason.BAD_COMMAND_FRAME,
                    "Codec " + codec.label() + " IMEI field has 16 digits: " + hex);
        }
        return hex.substring(1);
    }

    static long imeiToWire(String imei) {
        return Long.parseUnsignedLong("0" + imei, 16);
    }
}
