package org.fleetpipe.teltonika.codec;

import io.netty.buffer.ByteBuf;

/**
 * CRC-16/IBM (ARC): reflected polynomial 0xA001, initial value 0, no final xor. Buffers are read
 * eight bytes at a time ("slicing by 8": {@code SLICES[k][b]} is the CRC effect of byte {@code b}
 * followed by {@code k} zero bytes): the byte-at-a-time loop spent most of its time in
 * {@code ByteBuf.getByte}'s checks, and the CRC was the server's hottest method.
 */
public final class Crc16Ibm {

    private static final int[] TABLE = new int[256];
    private static final int[][] SLICES = new int[8][256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xA001 : crc >>> 1;
            }
            TABLE[i] = crc;
        }
        SLICES[0] = TABLE;
        for (int k = 1; k < 8; k++) {
            for (int b = 0; b < 256; b++) {
                int previous = SLICES[k - 1][b];
                SLICES[k][b] = (previous >>> 8) ^ TABLE[previous & 0xFF];
            }
        }
    }

    private Crc16Ibm() {
    }

    /** CRC of {@code length} bytes from absolute {@code index}; the buffer's indices are untouched. */
    public static int compute(ByteBuf buf, int index, int length) {
        int[] t0 = SLICES[0], t1 = SLICES[1], t2 = SLICES[2], t3 = SLICES[3];
        int[] t4 = SLICES[4], t5 = SLICES[5], t6 = SLICES[6], t7 = SLICES[7];
        int crc = 0;
        int end = index + length;
        int i = index;
        for (; i + 8 <= end; i += 8) {
            long x = buf.getLongLE(i) ^ crc;
            crc = t7[(int) x & 0xFF] ^ t6[(int) (x >>> 8) & 0xFF] ^ t5[(int) (x >>> 16) & 0xFF]
                    ^ t4[(int) (x >>> 24) & 0xFF] ^ t3[(int) (x >>> 32) & 0xFF] ^ t2[(int) (x >>> 40) & 0xFF]
                    ^ t1[(int) (x >>> 48) & 0xFF] ^ t0[(int) (x >>> 56) & 0xFF];
        }
        for (; i < end; i++) {
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
