package org.fleetpipe.teltonika.codec.avl;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Big-endian reads from a byte array: what the checking walk and the cursor read a body with. */
final class BodyBytes {

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private BodyBytes() {
    }

    static long getLong(byte[] b, int at) {
        return (long) LONG.get(b, at);
    }

    static int getInt(byte[] b, int at) {
        return (int) INT.get(b, at);
    }

    static short getShort(byte[] b, int at) {
        return (short) SHORT.get(b, at);
    }

    static int unsignedByte(byte[] b, int at) {
        return b[at] & 0xFF;
    }

    static int unsignedShort(byte[] b, int at) {
        return getShort(b, at) & 0xFFFF;
    }

    /** An unsigned value of 1 or 2 bytes (counts and ids). */
    static int unsigned(byte[] b, int at, int width) {
        return width == 1 ? unsignedByte(b, at) : unsignedShort(b, at);
    }

    /** A fixed-width IO value of 1, 2, 4 or 8 bytes: the raw unsigned bits. */
    static long fixed(byte[] b, int at, int width) {
        return switch (width) {
            case 1 -> unsignedByte(b, at);
            case 2 -> unsignedShort(b, at);
            case 4 -> getInt(b, at) & 0xFFFF_FFFFL;
            default -> getLong(b, at);
        };
    }
}
