package org.fleetpipe.teltonika.codec.avl;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;

/**
 * Decodes the body of an AVL packet (codec id through number of data 2) of Codec 8, 8E or 16.
 * Every count is checked against the limits and against the bytes actually present before any
 * list is sized from it, so a hostile count cannot make us allocate.
 */
public final class AvlPacketDecoder {

    private final DecodeLimits limits;

    public AvlPacketDecoder(DecodeLimits limits) {
        this.limits = limits;
    }

    /** Decodes exactly the readable bytes of {@code body}; the buffer's indices are not moved. */
    public AvlPacket decode(ByteBuf body) {
        CodecId codec = codecOf(body);
        int count = checkedCount(body);
        ByteBuf in = records(body, codec, count);
        RecordLayout layout = RecordLayout.of(codec);
        List<AvlRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(readRecord(in, layout, true));
        }
        checkConsumed(in, count);
        return new AvlPacket(codec, records);
    }

    /**
     * Checks exactly the readable bytes of {@code body} as {@link #decode} does, every limit and
     * count, but makes no record objects: the packet is then read in place with an
     * {@link AvlRecordCursor}, valid as long as {@code body}'s bytes are. The indices are not moved.
     */
    public AvlPacketView view(ByteBuf body) {
        CodecId codec = codecOf(body);
        int count = checkedCount(body);
        ByteBuf in = records(body, codec, count);
        RecordLayout layout = RecordLayout.of(codec);
        for (int i = 0; i < count; i++) {
            readRecord(in, layout, false);
        }
        checkConsumed(in, count);
        return new AvlPacketView(codec, count, body, body.readerIndex() + 2, body.readableBytes() - 3);
    }

    private static CodecId codecOf(ByteBuf body) {
        int length = body.readableBytes();
        if (length < 3) {
            throw new CodecException(Reason.TRUNCATED, "AVL body of " + length + " bytes");
        }
        CodecId codec = CodecId.fromWire(body.getUnsignedByte(body.readerIndex()));
        if (!codec.isAvl()) {
            throw new CodecException(Reason.UNKNOWN_CODEC, "codec " + codec.label() + " carries no AVL records");
        }
        return codec;
    }

    private int checkedCount(ByteBuf body) {
        int start = body.readerIndex();
        int count = body.getUnsignedByte(start + 1);
        int count2 = body.getUnsignedByte(start + body.readableBytes() - 1);
        if (count != count2) {
            throw new CodecException(Reason.RECORD_COUNT_MISMATCH,
                    "number of data 1 is " + count + ", number of data 2 is " + count2);
        }
        if (count > limits.maxRecords()) {
            throw new CodecException(Reason.LIMIT_EXCEEDED,
                    count + " records, limit " + limits.maxRecords());
        }
        return count;
    }

    /** The records' bytes, between the two counts, once they are known to be enough for {@code count}. */
    private static ByteBuf records(ByteBuf body, CodecId codec, int count) {
        ByteBuf in = body.slice(body.readerIndex() + 2, body.readableBytes() - 3);
        if ((long) count * RecordLayout.of(codec).minRecordBytes > in.readableBytes()) {
            throw new CodecException(Reason.TRUNCATED,
                    count + " records cannot fit in " + in.readableBytes() + " bytes");
        }
        return in;
    }

    private static void checkConsumed(ByteBuf in, int count) {
        if (in.isReadable()) {
            throw new CodecException(Reason.RECORD_COUNT_MISMATCH,
                    in.readableBytes() + " bytes left after the " + count + " declared records");
        }
    }

    /** Reads and checks one record; with {@code build} false it only checks, and returns null. */
    private AvlRecord readRecord(ByteBuf in, RecordLayout layout, boolean build) {
        need(in, layout.minRecordBytes, "record");
        long timestamp = in.readLong();
        int priority = in.readUnsignedByte();
        int longitude = in.readInt();
        int latitude = in.readInt();
        short altitude = in.readShort();
        int angle = in.readUnsignedShort();
        int satellites = in.readUnsignedByte();
        int speed = in.readUnsignedShort();
        int eventId = readUnsigned(in, layout.eventIdWidth);
        int generation = layout.generationType ? in.readUnsignedByte() : AvlRecord.NO_GENERATION;
        int total = readUnsigned(in, layout.totalCountWidth);
        if (total > limits.maxIoPerRecord()) {
            throw new CodecException(Reason.LIMIT_EXCEEDED,
                    total + " IO elements in a record, limit " + limits.maxIoPerRecord());
        }
        // Each element takes at least its id and one value byte; refuse a total the bytes cannot hold.
        if ((long) total * (layout.ioIdWidth + 1) > in.readableBytes()) {
            throw new CodecException(Reason.TRUNCATED, total + " IO elements cannot fit the record");
        }
        IoElements.Builder io = build ? new IoElements.Builder(total) : null;
        int seen = 0;
        for (int width = 1; width <= 8; width <<= 1) {
            need(in, layout.groupCountWidth, "IO group count");
            int n = readUnsigned(in, layout.groupCountWidth);
            seen = checkSeen(seen + n, total);
            need(in, n * (layout.ioIdWidth + width), groupOfWidth(width));
            for (int j = 0; j < n; j++) {
                int id = readUnsigned(in, layout.ioIdWidth);
                long value = readFixed(in, width);
                if (build) {
                    io.fixed(id, width, value);
                }
            }
        }
        if (layout.variableGroup) {
            need(in, 2, "variable IO count");
            int n = in.readUnsignedShort();
            seen = checkSeen(seen + n, total);
            for (int j = 0; j < n; j++) {
                need(in, 4, "variable IO header");
                int id = in.readUnsignedShort();
                int len = in.readUnsignedShort();
                if (len > limits.maxVariableIoBytes()) {
                    throw new CodecException(Reason.LIMIT_EXCEEDED,
                            "variable IO " + id + " of " + len + " bytes, limit " + limits.maxVariableIoBytes());
                }
                need(in, len, "variable IO value");
                if (build) {
                    byte[] value = new byte[len];
                    in.readBytes(value);
                    io.variable(id, value);
                } else {
                    in.skipBytes(len);
                }
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
                new GpsElement(longitude, latitude, altitude, angle, satellites, speed), eventId, generation, io.build());
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

    private int checkSeen(int seen, int total) {
        if (seen > total) {
            throw new CodecException(Reason.IO_COUNT_MISMATCH, "IO groups hold more than the total " + total);
        }
        return seen;
    }

    private static void need(ByteBuf in, long bytes, String what) {
        if (in.readableBytes() < bytes) {
            throw new CodecException(Reason.TRUNCATED,
                    what + " needs " + bytes + " bytes, " + in.readableBytes() + " left");
        }
    }

    private static int readUnsigned(ByteBuf in, int width) {
        return width == 1 ? in.readUnsignedByte() : in.readUnsignedShort();
    }

    private static long readFixed(ByteBuf in, int width) {
        return switch (width) {
            case 1 -> in.readUnsignedByte();
            case 2 -> in.readUnsignedShort();
            case 4 -> in.readUnsignedInt();
            default -> in.readLong();
        };
    }
}
