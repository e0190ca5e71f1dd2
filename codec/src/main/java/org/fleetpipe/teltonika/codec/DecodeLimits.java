package org.fleetpipe.teltonika.codec;

/**
 * Every bound the decoders enforce before they allocate.
 *
 * @param maxFrameBytes      whole TCP frame (preamble, length, body, CRC) or UDP datagram
 * @param maxRecords         AVL records in one packet (the wire allows 255)
 * @param maxIoPerRecord     IO elements in one record, all groups together
 * @param maxVariableIoBytes bytes of one Codec 8E variable-length IO value
 * @param maxLoginBytes      declared length of the IMEI login text
 */
public record DecodeLimits(int maxFrameBytes, int maxRecords, int maxIoPerRecord, int maxVariableIoBytes,
                           int maxLoginBytes) {

    /** Most trackers cap packets at 1280 bytes; 16 KiB leaves room for Codec 8E with large NX values. */
    public static final DecodeLimits DEFAULTS = new DecodeLimits(16 * 1024, 255, 512, 4096, 64);

    public DecodeLimits {
        require(maxFrameBytes >= 45 && maxFrameBytes <= 16 * 1024 * 1024, "maxFrameBytes", maxFrameBytes);
        require(maxRecords >= 1 && maxRecords <= 255, "maxRecords", maxRecords);
        require(maxIoPerRecord >= 0 && maxIoPerRecord <= 65535, "maxIoPerRecord", maxIoPerRecord);
        require(maxVariableIoBytes >= 0 && maxVariableIoBytes <= 65535, "maxVariableIoBytes", maxVariableIoBytes);
        // The framer tells a login (u16 length) from a data frame (zero preamble) by its first byte
        // being 0x00, so a login length must stay below 256.
        require(maxLoginBytes >= Imei.LENGTH && maxLoginBytes <= 255, "maxLoginBytes", maxLoginBytes);
    }

    private static void require(boolean ok, String name, int value) {
        if (!ok) {
            throw new IllegalArgumentException(name + " out of range: " + value);
        }
    }

    public DecodeLimits withMaxFrameBytes(int bytes) {
        return new DecodeLimits(bytes, maxRecords, maxIoPerRecord, maxVariableIoBytes, maxLoginBytes);
    }
}
