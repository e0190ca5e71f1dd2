package org.fleetpipe.teltonika.testkit.cluster;

/** An inclusive range of Redis Cluster hash slots, such as 0-5460. */
public record SlotRange(int from, int to) {

    /** The number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    public SlotRange {
        if (from < 0 || to >= SLOTS || from > to) {
            throw new IllegalArgumentException("not a slot range: " + from + "-" + to);
        }
    }

    /** Whether the slot is in this range. */
    public boolean contains(int slot) {
        return slot >= from && slot <= to;
    }

    /** How many slots the range holds. */
    public int size() {
        return to - from + 1;
    }

    @Override
    public String toString() {
        return from + "-" + to;
    }
}
