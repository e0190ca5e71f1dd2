package org.fleetpipe.teltonika.codec.command;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * A Codec 12, 13, 14 or 15 message, in either direction.
 *
 * <p>Codec 15 is not in the shared PROTOCOL.md; it follows Teltonika's public wiki ("Teltonika Data
 * Sending Protocols", Codec 15, FMX6 RS232 modes): the Codec 12 layout, type {@code 0x0B}, and the
 * size counting a u32 timestamp in seconds, then the IMEI as Codec 14 writes it, then the text.
 *
 * @param imei             the IMEI a Codec 14 or 15 frame carries, null for 12 and 13
 * @param timestampSeconds the timestamp a Codec 13 or 15 frame carries (u32), -1 for 12 and 14
 * @param payload          command or response text as raw bytes (copied in and out)
 */
public record CommandFrame(CodecId codec, int type, String imei, long timestampSeconds, byte[] payload) {

    /** Server to device. */
    public static final int TYPE_COMMAND = 0x05;
    /** Device to server. */
    public static final int TYPE_RESPONSE = 0x06;
    /** Codec 14: the IMEI in the command is not the device's own. */
    public static final int TYPE_NACK = 0x11;
    /** Codec 15: a message of the device's own (device to server only). */
    public static final int TYPE_CODEC15_MESSAGE = 0x0B;

    public CommandFrame {
        if (codec.isAvl()) {
            throw new IllegalArgumentException("not a command codec: " + codec);
        }
        if ((type & ~0xFF) != 0) {
            throw new IllegalArgumentException("type is one byte");
        }
        if (carriesImei(codec) != (imei != null)) {
            throw new IllegalArgumentException("an IMEI belongs in Codec 14 and 15 frames, and only there");
        }
        if (imei != null) {
            new Imei(imei);
        }
        if (carriesTimestamp(codec) != (timestampSeconds >= 0)) {
            throw new IllegalArgumentException("a timestamp belongs in Codec 13 and 15 frames, and only there");
        }
        if (timestampSeconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("the timestamp is a u32: " + timestampSeconds);
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

    /** A Codec 15 message as an FMX6 sends it from its RS232 port. */
    public static CommandFrame codec15Message(String imei, long timestampSeconds, String text) {
        return new CommandFrame(CodecId.CODEC_15, TYPE_CODEC15_MESSAGE, imei, timestampSeconds, ascii(text));
    }

    /** True for the codecs whose frames carry the IMEI (14 and 15). */
    public static boolean carriesImei(CodecId codec) {
        return codec == CodecId.CODEC_14 || codec == CodecId.CODEC_15;
    }

    /** True for the codecs whose frames carry the device's timestamp (13 and 15). */
    public static boolean carriesTimestamp(CodecId codec) {
        return codec == CodecId.CODEC_13 || codec == CodecId.CODEC_15;
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
