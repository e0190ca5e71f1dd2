package org.fleetpipe.teltonika.codec.avl;

import java.util.List;

/**
 * One AVL record.
 *
 * @param timestamp      ms since the Unix epoch (UTC)
 * @param priority       0 low, 1 high, 2 panic (kept as sent)
 * @param eventIoId      IO id that caused the record, 0 when none
 * @param generationType Codec 16 only; {@link #NO_GENERATION} for the other codecs
 * @param io             IO elements in wire order (by width group, then as sent), kept as {@link IoElements}
 */
public record AvlRecord(long timestamp, int priority, GpsElement gps, int eventIoId, int generationType,
                        List<IoElement> io) {

    public static final int NO_GENERATION = -1;

    public AvlRecord {
        io = IoElements.of(io);
        if ((priority & ~0xFF) != 0 || (eventIoId & ~0xFFFF) != 0 || generationType < NO_GENERATION
                || generationType > 0xFF) {
            throw new IllegalArgumentException("priority u8, event id u16, generation type u8 or -1");
        }
    }

    /** {@link #io()} with its primitive accessors, for reading it without an object per element. */
    public IoElements ioElements() {
        return (IoElements) io;
    }

    public boolean hasGenerationType() {
        return generationType != NO_GENERATION;
    }
}
