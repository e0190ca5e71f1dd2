package org.fleetpipe.teltonika.codec.avl;

import static org.fleetpipe.teltonika.codec.avl.BodyBytes.fixed;
import static org.fleetpipe.teltonika.codec.avl.BodyBytes.getInt;
import static org.fleetpipe.teltonika.codec.avl.BodyBytes.getLong;
import static org.fleetpipe.teltonika.codec.avl.BodyBytes.getShort;
import static org.fleetpipe.teltonika.codec.avl.BodyBytes.unsigned;
import static org.fleetpipe.teltonika.codec.avl.BodyBytes.unsignedByte;
import static org.fleetpipe.teltonika.codec.avl.BodyBytes.unsignedShort;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;

/**
 * Decodes the body of an AVL packet (codec id through number of data 2) of Codec 8, 8E or 16.
 * Every count is checked against the limits and against the bytes actually present before any
 * list is sized from it, so a hostile count cannot make us allocate.
 *
 * <p>The body is copied once into an array (a {@link AvlScratch} for {@link #view}) and read there:
 * plain array reads, where reading a slice of a pooled buffer field by field checks bounds and
 * liveness on each.
 */
public final class AvlPacketDecoder {

    private final DecodeLimits limits;

    public AvlPacketDecoder(DecodeLimits limits) {
        this.limits = limits;
    }

    /** Decodes exactly the readable bytes of {@code body}; the buffer's indices are not moved. */
    public AvlPacket decode(ByteBuf body) {
        int length = body.readableBytes();
        byte[] bytes;
        int start;
        if (body.hasArray()) {
            bytes = body.array();
            start = body.arrayOffset() + body.readerIndex();
        } else {
            bytes = new byte[length];
            body.getBytes(body.readerIndex(), bytes);
            start = 0;
        }
        Walk walk = new Walk(bytes, start, length);
        List<AvlRecord> records = new ArrayList<>(walk.count);
        for (int i = 0; i < walk.count; i++) {
            records.add(walk.record(true));
        }
        walk.checkConsumed();
        return new AvlPacket(walk.codec, records);
    }

    /**
     * Checks exactly the readable bytes of {@code body} as {@link #decode} does, every limit and
     * count, but makes no record objects: the packet is then read in place with an
     * {@link AvlRecordCursor}. The body is copied into {@code scratch}, where the view stays valid
     * until the scratch is used again. The indices of {@code body} are not moved.
     */
    public AvlPacketView view(ByteBuf body, AvlScratch scratch) {
        int length = body.readableBytes();
        byte[] bytes = scratch.array(length);
        body.getBytes(body.readerIndex(), bytes, 0, length);
        return view(bytes, 0, length);
    }

    /** As {@link #view(ByteBuf, AvlScratch)}, in a copy of its own (tests, tools). */
    public AvlPacketView view(ByteBuf body) {
        return view(body, new AvlScratch());
    }

    /** A view of {@code length} bytes of {@code bytes} from {@code start}, checked as {@link #decode} does. */
    AvlPacketView view(byte[] bytes, int start, int length) {
        Walk walk = new Walk(bytes, start, length);
        for (int i = 0; i < walk.count; i++) {
            walk.record(false);
        }
        walk.checkConsumed();
        return new AvlPacketView(walk.codec, walk.count, bytes, start + 2, length - 3);
    }

    private static CodecException truncatedBody(int length) {
        return new CodecException(Reason.TRUNCATED, "AVL body of " + length + " bytes");
    }

    /** One checking pass over a body's bytes: the header's checks when made, then record by record. */
    private final class Walk {
        private final byte[] b;
        private final CodecId codec;
        private final int count;
        private final RecordLayout layout;
        private int at;
        /** Where the records end: the number of data 2. */
        private final int end;

        Walk(byte[] b, int start, int length) {
            this.b = b;
            if (length < 3) {
                throw truncatedBody(length);
            }
            codec = CodecId.fromWire(unsignedByte(b, start));
            if (!codec.isAvl()) {
                throw new CodecException(Reason.UNKNOWN_CODEC, "codec " + codec.label() + " carries no AVL records");
            }
            count = unsignedByte(b, start + 1);
            int count2 = unsignedByte(b, start + length - 1);
            if (count != count2) {
                throw new CodecException(Reason.RECORD_COUNT_MISMATCH,
                        "number of data 1 is " + count + ", number of data 2 is " + count2);
            }
            if (count > limits.maxRecords()) {
                throw new CodecException(Reason.LIMIT_EXCEEDED, count + " records, limit " + limits.maxRecords());
            }
            layout = RecordLayout.of(codec);
            at = start + 2;
            end = start + length - 1;
            if ((long) count * layout.minRecordBytes > left()) {
                throw new CodecException(Reason.TRUNCATED, count + " records cannot fit in " + left() + " bytes");
            }
        }

        private int left() {
            return end - at;
        }

        void checkConsumed() {
            if (at != end) {
                throw new CodecException(Reason.RECORD_COUNT_MISMATCH,
                        left() + " bytes left after the " + count + " declared records");
            }
        }

        /** Reads and checks one record; with {@code build} false it only checks, and returns null. */
        AvlRecord record(boolean build) {
            need(layout.minRecordBytes, "record");
            long timestamp = getLong(b, at);
            int priority = unsignedByte(b, at + 8);
            int longitude = getInt(b, at + 9);
            int latitude = getInt(b, at + 13);
            short altitude = getShort(b, at + 17);
            int angle = unsignedShort(b, at + 19);
            int satellites = unsignedByte(b, at + 21);
            int speed = unsignedShort(b, at + 22);
            at += RecordLayout.HEADER_BYTES;
            int eventId = next(layout.eventIdWidth);
            int generation = layout.generationType ? next(1) : AvlRecord.NO_GENERATION;
            int total = next(layout.totalCountWidth);
            if (total > limits.maxIoPerRecord()) {
                throw new CodecException(Reason.LIMIT_EXCEEDED,
                        total + " IO elements in a record, limit " + limits.maxIoPerRecord());
            }
            // Each element takes at least its id and one value byte; refuse a total the bytes cannot hold.
            if ((long) total * (layout.ioIdWidth + 1) > left()) {
                throw new CodecException(Reason.TRUNCATED, total + " IO elements cannot fit the record");
            }
            IoElements.Builder io = build ? new IoElements.Builder(total) : null;
            int seen = 0;
            for (int width = 1; width <= 8; width <<= 1) {
                need(layout.groupCountWidth, "IO group count");
                int n = next(layout.groupCountWidth);
                seen = checkSeen(seen + n, total);
                need((long) n * (layout.ioIdWidth + width), groupOfWidth(width));
                for (int j = 0; j < n; j++) {
                    int id = next(layout.ioIdWidth);
                    long value = fixed(b, at, width);
                    at += width;
                    if (build) {
                        io.fixed(id, width, value);
                    }
                }
            }
            if (layout.variableGroup) {
                need(2, "variable IO count");
                int n = next(2);
                seen = checkSeen(seen + n, total);
                for (int j = 0; j < n; j++) {
                    need(4, "variable IO header");
                    int id = next(2);
                    int len = next(2);
                    if (len > limits.maxVariableIoBytes()) {
                        throw new CodecException(Reason.LIMIT_EXCEEDED,
                                "variable IO " + id + " of " + len + " bytes, limit " + limits.maxVariableIoBytes());
                    }
                    need(len, "variable IO value");
                    if (build) {
                        io.variable(id, Arrays.copyOfRange(b, at, at + len));
                    }
                    at += len;
                }
            }
            if (seen != total) {
                throw new CodecException(Reason.IO_COUNT_MISMATCH,
                        "total IO count " + total + " but groups hold " + seen);
            }
            if (!build) {
                return null;
            }
            return new AvlRecord(timestamp, priority,
                    new GpsElement(longitude, latitude, altitude, angle, satellites, speed), eventId, generation,
                    io.build());
        }

        private int next(int width) {
            int value = unsigned(b, at, width);
            at += width;
            return value;
        }

        private void need(long bytes, String what) {
            if (left() < bytes) {
                throw new CodecException(Reason.TRUNCATED, what + " needs " + bytes + " bytes, " + left() + " left");
            }
        }
    }

    /** Constants: a label built with + here would cost a String per group of every record. */
    private static String groupOfWidth(int width) {
        return switch (width) {
            case 1 -> "IO group of width 1";
            case 2 -> "IO group of width 2";
            case 4 -> "IO group of width 4";
            default -> "IO group of width 8";
        };
    }

    private static int checkSeen(int seen, int total) {
        if (seen > total) {
            throw new CodecException(Reason.IO_COUNT_MISMATCH, "IO groups hold more than the total " + total);
        }
        return seen;
    }
}
