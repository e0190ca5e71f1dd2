package org.fleetpipe.teltonika.codec.command;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * A Codec 12, 13 or 14 message, in either direction.
 *
 * @param imei             the IMEI a Codec 14 frame carries, null for 12 and 13
 * @param timestampSeconds the timestamp a Codec 13 frame carries, -1 for 12 and 14
 * @param payload          command or response text as raw bytes (copied in and out)
 */
public record CommandFrame(CodecId codec, int type, String imei, long timestampSeconds, byte[] payload) {

    /** Server to device. */
    public static final int TYPE_COMMAND = 0x05;
    /** Device to server. */
    public static final int TYPE_RESPONSE = 0x06;
    /** Codec 14: the IMEI in the command is not the device's own. */
    public static final int TYPE_NACK = 0x11;

    public CommandFrame {
        if (codec != CodecId.CODEC_12 && codec != CodecId.CODEC_13 && codec != CodecId.CODEC_14) {
            throw new IllegalArgumentException("not a command codec: " + codec);
        }
        if ((type & ~0xFF) != 0) {
            throw new IllegalArgumentException("type is one byte");
        }
        if ((codec == CodecId.CODEC_14) != (imei != null)) {
            throw new IllegalArgumentException("an IMEI belongs in Codec 14 frames, and only there");
        }
        if (imei != null) {
            new Imei(imei);
        }
        if ((codec == CodecId.CODEC_13) != (timestampSeconds >= 0)) {
            throw new IllegalArgumentException("a timestamp belongs in Codec 13 frames, and only there");
        }
        payload = payload.clone();
    }

    public static CommandFrame codec12Command(String text) {
        return new CommandFrame(CodecId.CODEC_12, TYPE_COMMAND, null, -1, ascii(text));
    }

    public static CommandFrame codec14Command(String imei, String text) {
        return new CommandFrame(CodecId.CODEC_14, TYPE_COMMAND, imei, -1, ascii(text));
    }

    public static CommandFrame codec12Response(String text) {
        return new CommandFrame(CodecId.CODEC_12, TYPE_RESPONSE, null, -1, ascii(text));
    }

    public static CommandFrame codec14Response(String imei, String text) {
        return new CommandFrame(CodecId.CODEC_14, TYPE_RESPONSE, imei, -1, ascii(text));
    }

    public static CommandFrame codec14Nack(String imei) {
        return new CommandFrame(CodecId.CODEC_14, TYPE_NACK, imei, -1, new byte[0]);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    public int payloadLength() {
        return payload.length;
    }

    /** The payload read as text; bytes outside ASCII become U+FFFD rather than failing. */
    public String text() {
        return new String(payload, StandardCharsets.US_ASCII);
    }

    public boolean isNack() {
        return type == TYPE_NACK;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommandFrame c && c.codec == codec && c.type == type
                && java.util.Objects.equals(c.imei, imei) && c.timestampSeconds == timestampSeconds
                && Arrays.equals(c.payload, payload);
    }

    @Override
    public int hashCode() {
        return (codec.hashCode() * 31 + type) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "CommandFrame[codec=" + codec.label() + ", type=0x" + Integer.toHexString(type) + ", imei=" + imei
                + ", timestamp=" + timestampSeconds + ", payload=" + HexFormat.of().formatHex(payload) + "]";
    }
}
