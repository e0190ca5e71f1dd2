package org.fleetpipe.teltonika.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Command arguments written straight into RESP bulk strings in a growable byte array, on the
 * caller's thread. Lettuce's own arguments are encoded later, one by one, on its single I/O thread,
 * each through a temporary pooled buffer; for the hundreds of arguments of a telemetry packet that
 * thread became the server's bottleneck. Here it only copies the finished bytes. The {@code put}
 * methods of an open bulk string take ASCII (numbers, hex, JSON of numbers).
 */
public final class RespArguments {

    private static final byte[] DIGIT_PAIRS = new byte[200];
    private static final long[] POWERS_OF_TEN = new long[19];
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** Bytes kept for the "$len\r\n" header of a value whose length is not known in advance. */
    private static final int OPEN_HEADER = 6;

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private byte[] bytes;
    private int length;
    private int count;
    private int openAt = -1;
    private boolean sealed;

    public RespArguments(int expectedBytes) {
        bytes = new byte[Math.max(64, expectedBytes)];
    }

    /** A bulk string (UTF-8) encoded once, for constants written again and again (field names, a script). */
    public static byte[] preEncoded(String text) {
        RespArguments one = new RespArguments(text.length() * 3 + 24);
        one.text(text);
        return Arrays.copyOf(one.bytes, one.length);
    }

    public int count() {
        return count;
    }

    public int byteLength() {
        return length;
    }

    /** Appends a bulk string made by {@link #preEncoded}. */
    public RespArguments encoded(byte[] bulk) {
        ensure(bulk.length);
        System.arraycopy(bulk, 0, bytes, length, bulk.length);
        length += bulk.length;
        count++;
        return this;
    }

    /** A string as UTF-8 (the common all-ASCII case without an intermediate array). */
    public RespArguments text(String text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            if (text.charAt(i) >= 0x80) {
                byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                header(utf8.length);
                ensure(utf8.length + 2);
                System.arraycopy(utf8, 0, bytes, length, utf8.length);
                length += utf8.length;
                return crlf();
            }
        }
        header(n);
        ensure(n + 2);
        for (int i = 0; i < n; i++) {
            bytes[length++] = (byte) text.charAt(i);
        }
        return crlf();
    }

    public RespArguments number(long value) {
        header(digits(value));
        ensure(22);
        writeDigits(value);
        return crlf();
    }

    /**
     * {@code unscaled / 10^scale} as a plain decimal: exact, never an exponent, no trailing zeros
     * (BigDecimal's {@code stripTrailingZeros().toPlainString()}). Its length is known before it is
     * written, so unlike {@link #open()} nothing is moved afterwards.
     */
    public RespArguments decimal(int unscaled, int scale) {
        if (scale < 0 || scale > 9) {
            throw new IllegalArgumentException("scale must be 0..9, got " + scale);
        }
        long magnitude = Math.abs((long) unscaled);
        long unit = POWERS_OF_TEN[scale];
        long whole = magnitude / unit;
        long fraction = magnitude % unit;
        int width = scale;
        while (fraction != 0 && fraction % 10 == 0) {
            fraction /= 10;
            width--;
        }
        int size = (unscaled < 0 ? 1 : 0) + digits(whole) + (fraction != 0 ? 1 + width : 0);
        header(size);
        ensure(size + 2);
        if (unscaled < 0) {
            bytes[length++] = '-';
        }
        writeDigits(whole);
        if (fraction != 0) {
            bytes[length++] = '.';
            putPadded(fraction, width);
        }
        return crlf();
    }

    /**
     * Starts a whole command of {@code arguments} bulk strings, the command's name first: a RESP
     * array header, not counted as an argument. For {@link TransactionPipe}, which sends such bytes as they are.
     */
    public RespArguments command(int arguments) {
        if (openAt >= 0) {
            throw new IllegalStateException("a bulk string is still open");
        }
        ensure(24);
        bytes[length++] = '*';
        writeDigits(arguments);
        bytes[length++] = '\r';
        bytes[length++] = '\n';
        return this;
    }

    /** Copies the bytes written so far into {@code out}. */
    public void copyTo(ByteBuf out) {
        if (openAt >= 0) {
            throw new IllegalStateException("a bulk string is still open");
        }
        out.writeBytes(bytes, 0, length);
    }

    /** Appends everything {@code other} holds, its arguments counted as this one's. */
    public RespArguments append(RespArguments other) {
        if (openAt >= 0 || other.openAt >= 0) {
            throw new IllegalStateException("a bulk string is still open");
        }
        ensure(other.length);
        System.arraycopy(other.bytes, 0, bytes, length, other.length);
        length += other.length;
        count += other.count;
        return this;
    }

    /** Drops what was written after {@link #byteLength()} was {@code byteLength} and {@link #count()} {@code count}. */
    public RespArguments truncate(int byteLength, int count) {
        if (sealed) {
            throw new IllegalStateException("handed to Lettuce, which may still read it");
        }
        if (byteLength > length || count > this.count) {
            throw new IllegalArgumentException("cannot grow by truncating");
        }
        length = byteLength;
        this.count = count;
        openAt = -1;
        return this;
    }

    /** Empties this to be written again, keeping its array: one per event loop, not one per call. */
    public RespArguments reset() {
        if (sealed) {
            throw new IllegalStateException("handed to Lettuce, which may still read it");
        }
        length = 0;
        count = 0;
        openAt = -1;
        return this;
    }

    /** Starts a bulk string whose content is appended with the {@code put} methods until {@link #close()}. */
    public RespArguments open() {
        if (openAt >= 0) {
            throw new IllegalStateException("a bulk string is already open");
        }
        ensure(OPEN_HEADER);
        openAt = length;
        length += OPEN_HEADER;
        return this;
    }

    public RespArguments put(char ascii) {
        ensure(1);
        bytes[length++] = (byte) ascii;
        return this;
    }

    public RespArguments putNumber(long value) {
        ensure(20);
        writeDigits(value);
        return this;
    }

    /** The 64 bits as an unsigned decimal (IO values of 8 bytes). */
    public RespArguments putUnsigned(long value) {
        if (value >= 0) {
            return putNumber(value);
        }
        long quotient = Long.divideUnsigned(value, 10);
        putNumber(quotient);
        return put((char) ('0' + (value - quotient * 10)));
    }

    /** {@code width} decimal digits of {@code value} (0 <= value < 10^width), with leading zeros. */
    public RespArguments putPadded(long value, int width) {
        ensure(width);
        int i = width - 1;
        for (; value > Integer.MAX_VALUE; i--) {
            bytes[length + i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        // A coordinate's fraction (below 10^7) fits an int, whose division is cheaper.
        int small = (int) value;
        for (; i >= 0; i--) {
            int quotient = small / 10;
            bytes[length + i] = (byte) ('0' + small - quotient * 10);
            small = quotient;
        }
        length += width;
        return this;
    }

    public RespArguments putHex(byte value) {
        ensure(2);
        bytes[length++] = HEX[(value >> 4) & 0xF];
        bytes[length++] = HEX[value & 0xF];
        return this;
    }

    /** Ends the open bulk string: writes its header and moves the content next to it. */
    public RespArguments close() {
        if (openAt < 0) {
            throw new IllegalStateException("no bulk string is open");
        }
        int contentAt = openAt + OPEN_HEADER;
        int size = length - contentAt;
        int headerSize = 3 + digits(size);
        if (headerSize > OPEN_HEADER) {
            ensure(headerSize - OPEN_HEADER);
        }
        System.arraycopy(bytes, contentAt, bytes, openAt + headerSize, size);
        length = openAt;
        openAt = -1;
        header(size);
        length += size;
        return crlf();
    }

    /** The arguments written so far, decoded (for tests and diagnostics). */
    public List<String> strings() {
        List<String> out = new ArrayList<>(count);
        int at = 0;
        while (at < length) {
            int lineEnd = at;
            while (bytes[lineEnd] != '\r') {
                lineEnd++;
            }
            int size = Integer.parseInt(new String(bytes, at + 1, lineEnd - at - 1, StandardCharsets.US_ASCII));
            out.add(new String(bytes, lineEnd + 2, size, StandardCharsets.UTF_8));
            at = lineEnd + 2 + size + 2;
        }
        return out;
    }

    /**
     * Lettuce command arguments: {@code first} (a pre-encoded bulk string, e.g. a script's SHA) and
     * then these. They share this object's bytes, so nothing more may be written to it.
     */
    public CommandArgs<String, String> after(byte[] first) {
        return after(first, null);
    }

    /**
     * As above, routed on a Redis Cluster by {@code routingKey} (one of the keys written in these
     * arguments): Lettuce sees only bytes here, and would send the command to any node, which
     * answers MOVED.
     */
    public CommandArgs<String, String> after(byte[] first, String routingKey) {
        if (openAt >= 0) {
            throw new IllegalStateException("a bulk string is still open");
        }
        sealed = true;
        return new Encoded(first, bytes, length, count,
                routingKey == null ? null : ByteBuffer.wrap(routingKey.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Arguments Lettuce writes by copying bytes. Kept as a heap array, not a pooled buffer: Lettuce
     * encodes a command again when it retries it after a reconnect, and nothing would release it.
     */
    private static final class Encoded extends CommandArgs<String, String> {
        private final byte[] first;
        private final byte[] rest;
        private final int restLength;
        private final int restCount;
        private final ByteBuffer routingKey;

        Encoded(byte[] first, byte[] rest, int restLength, int restCount, ByteBuffer routingKey) {
            super(StringCodec.UTF8);
            this.first = first;
            this.rest = rest;
            this.restLength = restLength;
            this.restCount = restCount;
            this.routingKey = routingKey;
        }

        @Override
        public ByteBuffer getFirstEncodedKey() {
            return routingKey == null ? null : routingKey.duplicate();
        }

        @Override
        public int count() {
            return 1 + restCount;
        }

        @Override
        public void encode(ByteBuf buf) {
            buf.writeBytes(first);
            buf.writeBytes(rest, 0, restLength);
        }

        @Override
        public String toCommandString() {
            return "<" + count() + " pre-encoded arguments, " + (first.length + restLength) + " bytes>";
        }

        @Override
        public String toString() {
            return toCommandString();
        }
    }

    private void header(int size) {
        ensure(24);
        bytes[length++] = '$';
        writeDigits(size);
        bytes[length++] = '\r';
        bytes[length++] = '\n';
    }

    private RespArguments crlf() {
        ensure(2);
        bytes[length++] = '\r';
        bytes[length++] = '\n';
        count++;
        return this;
    }

    private void writeDigits(long value) {
        if (value >= 0 && value < 100) {
            // Most bulk-string lengths and many values (priority, satellites, IO flags): no division loop.
            if (value >= 10) {
                bytes[length++] = DIGIT_PAIRS[2 * (int) value];
                bytes[length++] = DIGIT_PAIRS[2 * (int) value + 1];
            } else {
                bytes[length++] = (byte) ('0' + value);
            }
            return;
        }
        if (value == Long.MIN_VALUE) {
            byte[] text = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, bytes, length, text.length);
            length += text.length;
            return;
        }
        if (value < 0) {
            bytes[length++] = '-';
            value = -value;
        }
        int n = digits(value);
        int at = length + n;
        while (value > Integer.MAX_VALUE) {
            long quotient = value / 100;
            int pair = (int) (value - quotient * 100);
            value = quotient;
            bytes[--at] = DIGIT_PAIRS[2 * pair + 1];
            bytes[--at] = DIGIT_PAIRS[2 * pair];
        }
        // Most values (lengths, IO values, coordinates' parts) fit an int, whose division is cheaper.
        int small = (int) value;
        while (small >= 100) {
            int quotient = small / 100;
            int pair = small - quotient * 100;
            small = quotient;
            bytes[--at] = DIGIT_PAIRS[2 * pair + 1];
            bytes[--at] = DIGIT_PAIRS[2 * pair];
        }
        if (small >= 10) {
            bytes[--at] = DIGIT_PAIRS[2 * small + 1];
            bytes[--at] = DIGIT_PAIRS[2 * small];
        } else {
            bytes[--at] = (byte) ('0' + small);
        }
        length += n;
    }

    /** Characters of {@code value} in decimal, sign included. */
    static int digits(long value) {
        if (value < 0) {
            return value == Long.MIN_VALUE ? 20 : 1 + digits(-value);
        }
        if (value < 10) {
            return 1;
        }
        // floor(log10(2^bits)) from the bit length, then one comparison: no loop over the digits.
        int guess = ((64 - Long.numberOfLeadingZeros(value)) * 1233) >>> 12;
        return guess + (value >= POWERS_OF_TEN[guess] ? 1 : 0);
    }

    private void ensure(int more) {
        if (sealed) {
            throw new IllegalStateException("already handed to Lettuce");
        }
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
