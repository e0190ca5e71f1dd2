package org.fleetpipe.teltonika.codec.avl;

/**
 * Reads an {@link AvlPacketView}'s records one after the other straight from its bytes: the
 * fields of the current record, then its IO elements in wire order (by width group, then the
 * variable-length group), what {@link AvlRecord} and {@link IoElements} hold, without objects.
 * Reusable: {@link #reset} starts it on another packet. The bytes were checked when the view was
 * made, so nothing here checks them again. Not thread-safe.
 */
public final class AvlRecordCursor {

    private byte[] in;
    private RecordLayout layout;
    private int recordsLeft;
    private int at;

    private long timestamp;
    private int priority;
    private int longitude;
    private int latitude;
    private short altitude;
    private int angle;
    private int satellites;
    private int speed;
    private int eventIoId;
    private int generationType;
    private int ioCount;

    /** Width of the IO group being read: 1, 2, 4, 8, then 0 for the variable-length group. */
    private int groupWidth;
    private int leftInGroup;
    private int ioId;
    private int ioWidth;
    private long ioValue;
    private int variableAt;
    private int variableLength;

    /** Starts before the first record of {@code packet}. */
    public AvlRecordCursor reset(AvlPacketView packet) {
        in = packet.bytes();
        layout = RecordLayout.of(packet.codec());
        recordsLeft = packet.size();
        at = packet.recordsAt();
        leftInGroup = 0;
        groupWidth = 0;
        return this;
    }

    /** Moves to the next record (past any IO elements of this one not read); false after the last. */
    public boolean next() {
        while (nextIo()) {
            // skipped: the next record starts after this one's last element
        }
        if (recordsLeft == 0) {
            return false;
        }
        recordsLeft--;
        byte[] b = in;
        timestamp = BodyBytes.getLong(b, at);
        priority = b[at + 8] & 0xFF;
        longitude = BodyBytes.getInt(b, at + 9);
        latitude = BodyBytes.getInt(b, at + 13);
        altitude = BodyBytes.getShort(b, at + 17);
        angle = unsignedShort(at + 19);
        satellites = b[at + 21] & 0xFF;
        speed = unsignedShort(at + 22);
        at += RecordLayout.HEADER_BYTES;
        eventIoId = unsigned(layout.eventIdWidth);
        generationType = AvlRecord.NO_GENERATION;
        if (layout.generationType) {
            generationType = b[at++] & 0xFF;
        }
        ioCount = unsigned(layout.totalCountWidth);
        groupWidth = 1;
        leftInGroup = unsigned(layout.groupCountWidth);
        return true;
    }

    /**
     * Moves to the current record's next IO element; false after its last. The groups' counts are
     * read as they come, so a record whose groups are empty still ends at its last count.
     */
    public boolean nextIo() {
        while (leftInGroup == 0) {
            if (groupWidth == 0 || (groupWidth == 8 && !layout.variableGroup)) {
                groupWidth = 0;
                return false;
            }
            if (groupWidth == 8) {
                groupWidth = 0;
                leftInGroup = unsignedShort(at);
                at += 2;
            } else {
                groupWidth <<= 1;
                leftInGroup = unsigned(layout.groupCountWidth);
            }
            if (groupWidth == 0 && leftInGroup == 0) {
                return false;
            }
        }
        leftInGroup--;
        if (groupWidth != 0) {
            ioId = unsigned(layout.ioIdWidth);
            ioWidth = groupWidth;
            ioValue = BodyBytes.fixed(in, at, groupWidth);
            at += groupWidth;
        } else {
            ioId = unsignedShort(at);
            variableLength = unsignedShort(at + 2);
            variableAt = at + 4;
            ioWidth = 0;
            ioValue = 0;
            at = variableAt + variableLength;
        }
        return true;
    }

    private int unsigned(int width) {
        int value = width == 1 ? in[at] & 0xFF : unsignedShort(at);
        at += width;
        return value;
    }

    private int unsignedShort(int index) {
        return BodyBytes.unsignedShort(in, index);
    }

    /** ms since the Unix epoch (UTC). */
    public long timestamp() {
        return timestamp;
    }

    public int priority() {
        return priority;
    }

    public int longitude() {
        return longitude;
    }

    public int latitude() {
        return latitude;
    }

    public short altitude() {
        return altitude;
    }

    public int angle() {
        return angle;
    }

    public int satellites() {
        return satellites;
    }

    public int speed() {
        return speed;
    }

    public int eventIoId() {
        return eventIoId;
    }

    /** Codec 16 only; {@link AvlRecord#NO_GENERATION} for the other codecs. */
    public int generationType() {
        return generationType;
    }

    /** IO elements of the current record, all groups together. */
    public int ioCount() {
        return ioCount;
    }

    public int ioId() {
        return ioId;
    }

    /** 1, 2, 4 or 8 bytes for a fixed-width element; 0 for a variable-length one. */
    public int ioWidth() {
        return ioWidth;
    }

    public boolean ioVariable() {
        return ioWidth == 0;
    }

    /** A fixed-width element's value: the raw unsigned bits. */
    public long ioValue() {
        return ioValue;
    }

    public int ioVariableLength() {
        return variableLength;
    }

    /** One byte of the variable-length element's value. */
    public byte ioVariableByte(int index) {
        return in[variableAt + index];
    }
}
