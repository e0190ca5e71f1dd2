package org.fleetpipe.teltonika.redis;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Walks RESP2/RESP3 replies in a buffer without building objects: where a complete reply ends,
 * and the first error inside it. For a client that only needs to know that its commands
 * succeeded, which is all a pipeline of writes needs.
 */
public final class RespReplies {

    /** A reply's end when it is not complete in the buffer yet. */
    public static final int INCOMPLETE = -1;
    /** Deeper than any reply the commands this is used for can give; a guard against a runaway buffer. */
    private static final int MAX_DEPTH = 8;

    private RespReplies() {
    }

    /** The index just past the reply that starts at {@code at}, or {@link #INCOMPLETE}. */
    public static int skip(ByteBuf buf, int at) {
        return skip(buf, at, 0, null);
    }

    /**
     * As {@link #skip(ByteBuf, int)}, and in the same pass notes in {@code errorAt[0]} where the
     * first error is, the reply itself or one of its elements when it is an array (an EXEC's
     * answers); left as it is when there is none (the caller sets it to -1 first).
     */
    public static int skip(ByteBuf buf, int at, int[] errorAt) {
        return skip(buf, at, 0, errorAt);
    }

    private static int skip(ByteBuf buf, int at, int depth, int[] errorAt) {
        int limit = buf.writerIndex();
        if (at >= limit) {
            return INCOMPLETE;
        }
        int lineEnd = lineEnd(buf, at + 1, limit);
        if (lineEnd == INCOMPLETE) {
            return INCOMPLETE;
        }
        int next = lineEnd + 2;
        byte type = buf.getByte(at);
        if (errorAt != null && depth <= 1 && errorAt[0] < 0 && (type == '-' || type == '!')) {
            errorAt[0] = at;
        }
        switch (type) {
            case '+', '-', ':', '_', ',', '#', '(' -> {
                return next;
            }
            case '$', '=', '!' -> {
                long size = number(buf, at + 1, lineEnd);
                if (size < 0) {
                    return next;
                }
                long end = next + size + 2;
                return end <= limit ? (int) end : INCOMPLETE;
            }
            case '*', '~', '>', '%', '|' -> {
                long elements = number(buf, at + 1, lineEnd);
                if (type == '%' || type == '|') {
                    elements *= 2;
                }
                if (depth >= MAX_DEPTH) {
                    throw new IllegalStateException("RESP reply nested deeper than " + MAX_DEPTH);
                }
                for (long i = 0; i < elements && next != INCOMPLETE; i++) {
                    next = skip(buf, next, depth + 1, errorAt);
                }
                return next;
            }
            default -> throw new IllegalStateException("not a RESP reply: type byte " + (type & 0xff));
        }
    }

    /**
     * The text of the first error in the complete reply at {@code at}, its elements included when
     * it is an array (an EXEC's answers), or null when there is none.
     */
    public static String firstError(ByteBuf buf, int at) {
        int[] errorAt = {-1};
        skip(buf, at, errorAt);
        return errorAt[0] < 0 ? null : errorText(buf, errorAt[0]);
    }

    /** The text of the complete error reply ({@code -} or RESP3 {@code !}) at {@code at}. */
    public static String errorText(ByteBuf buf, int at) {
        int lineEnd = lineEnd(buf, at + 1, buf.writerIndex());
        if (buf.getByte(at) == '!') {
            return buf.toString(lineEnd + 2, (int) number(buf, at + 1, lineEnd), StandardCharsets.UTF_8);
        }
        return buf.toString(at + 1, lineEnd - at - 1, StandardCharsets.UTF_8);
    }

    /** Whether the complete reply at {@code at} is a null array (an EXEC that did not run, after a WATCH). */
    public static boolean isNullArray(ByteBuf buf, int at) {
        return buf.getByte(at) == '*' && buf.getByte(at + 1) == '-';
    }

    private static int lineEnd(ByteBuf buf, int from, int limit) {
        for (int i = from; i < limit - 1; i++) {
            if (buf.getByte(i) == '\r') {
                return buf.getByte(i + 1) == '\n' ? i : fail(i);
            }
        }
        return INCOMPLETE;
    }

    private static int fail(int at) {
        throw new IllegalStateException("RESP line without LF after CR at " + at);
    }

    private static long number(ByteBuf buf, int from, int to) {
        boolean negative = buf.getByte(from) == '-';
        long value = 0;
        for (int i = negative ? from + 1 : from; i < to; i++) {
            byte digit = buf.getByte(i);
            if (digit < '0' || digit > '9') {
                throw new IllegalStateException("RESP length is not a number at " + i);
            }
            value = value * 10 + (digit - '0');
        }
        return negative ? -value : value;
    }
}
