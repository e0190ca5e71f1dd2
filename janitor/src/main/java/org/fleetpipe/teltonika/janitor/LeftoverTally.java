package org.fleetpipe.teltonika.janitor;

import java.util.concurrent.atomic.AtomicLong;

/** What one janitor pass handed on of dead instances' leftovers: given back to be done, or failed for good. */
public final class LeftoverTally {

    private final AtomicLong handedBack = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /** Counts one step's outcome; steps may complete on another thread than the janitor's. */
    public void add(long handedBack, long failed) {
        this.handedBack.addAndGet(handedBack);
        this.failed.addAndGet(failed);
    }

    public long handedBack() {
        return handedBack.get();
    }

    public long failed() {
        return failed.get();
    }
}
