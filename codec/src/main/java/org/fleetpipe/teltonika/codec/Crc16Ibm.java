package org.fleetpipe.teltonika.codec;

import io.netty.buffer.ByteBuf;

/** CRC-16/IBM (ARC): reflected polynomial 0xA001, initial value 0, no final xor. */
public final class Crc16Ibm {

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xA001 : crc >>> 1;
            }
            TABLE[i] = crc;
        }
    }

    private Crc16Ibm() {
    }

    /** CRC of {@code length} bytes from absolute {@code index}; the buffer's indices are untouched. */
    public static int compute(ByteBuf buf, int index, int length) {
        int crc = 0;
        int end = index + length;
        for (int i = index; i < end; i++) {
            crc = (crc >>> 8) ^ TABLE[(crc ^ buf.getByte(i)) & 0xFF];
        }
        return crc;
    }

    /** CRC of a byte array region. */
    public static int compute(byte[] bytes, int offset, int length) {
        int crc = 0;
        for (int i = offset; i < offset + length; i++) {
            crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]) & 0xFF];
        }
        return crc;
    }
}
