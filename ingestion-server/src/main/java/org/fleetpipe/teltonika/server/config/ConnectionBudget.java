package org.fleetpipe.teltonika.server.config;

/**
 * How many device connections a heap holds: half of it at {@value #BYTES_PER_CONNECTION} bytes
 * each. An idle connection was measured at 2.5 to 2.7 KiB of heap (BENCHMARKS.md, connection
 * scale); the budget is three times that, for what a busy one holds besides (a packet in flight,
 * its device's books), and half the heap is left for the rest (held packets, Redis buffers, the
 * API). {@code MAX_CONNECTIONS=auto} takes what fits, at most {@value #MOST}.
 */
public final class ConnectionBudget {

    static final int BYTES_PER_CONNECTION = 8 * 1024;
    /** The cap of old, kept as the most auto ever picks: a replica is not meant to hold more. */
    static final int MOST = 50_000;

    private ConnectionBudget() {
    }

    /** The most connections a heap of {@code maxHeapBytes} holds within the budget. */
    public static int fitting(long maxHeapBytes) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxHeapBytes / 2 / BYTES_PER_CONNECTION));
    }

    /** What {@code MAX_CONNECTIONS=auto} picks for this heap. */
    public static int auto(long maxHeapBytes) {
        return Math.min(MOST, fitting(maxHeapBytes));
    }
}
