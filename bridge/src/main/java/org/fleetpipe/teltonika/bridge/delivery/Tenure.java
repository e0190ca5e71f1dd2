package org.fleetpipe.teltonika.bridge.delivery;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One partition this replica holds the lease of, from taking it to giving it up or losing it. Its
 * entries may be delivered only until {@code deadline}: the last renewal's send time plus two
 * thirds of the ttl, so that a replica that stops renewing stops delivering a third of the ttl
 * before its lease can expire in Redis and be taken by another.
 */
final class Tenure {

    /** Where the tenure is: taken (not read yet), read, or being given up (no longer read). */
    enum State { TAKEN, READING, DRAINING }

    final int partition;
    final String stream;
    private volatile State state = State.TAKEN;
    private volatile long deadlineNanos;
    private volatile boolean giveUp;
    private final AtomicBoolean lost = new AtomicBoolean();

    Tenure(int partition, String stream, long deadlineNanos) {
        this.partition = partition;
        this.stream = stream;
        this.deadlineNanos = deadlineNanos;
    }

    State state() {
        return state;
    }

    void state(State next) {
        state = next;
    }

    void renewed(long deadline) {
        deadlineNanos = deadline;
    }

    boolean pastDeadline(long nowNanos) {
        return nowNanos - deadlineNanos >= 0;
    }

    /** Asked to give the partition up (above this replica's share). */
    void giveUp() {
        giveUp = true;
    }

    boolean givingUp() {
        return giveUp;
    }

    /** True for the one caller that marks it lost first. */
    boolean markLost() {
        return lost.compareAndSet(false, true);
    }

    boolean lost() {
        return lost.get();
    }
}
