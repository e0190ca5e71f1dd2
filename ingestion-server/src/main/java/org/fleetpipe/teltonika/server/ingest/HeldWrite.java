package org.fleetpipe.teltonika.server.ingest;

/**
 * A write that waits for room in the telemetry stream rather than for Redis. Its connection gives it
 * up when it closes: the device resends the packet on its next connection, so it is never written.
 */
public interface HeldWrite {

    /** Never write it; its stage fails with {@link StreamFull}. Any thread; a no-op once it left the hold. */
    void abandon();
}
