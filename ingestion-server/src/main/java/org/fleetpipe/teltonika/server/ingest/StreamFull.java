package org.fleetpipe.teltonika.server.ingest;

import java.util.concurrent.CompletionException;

/** A packet was not written because the consumers of the telemetry stream are too far behind: no ACK, the device resends. */
public final class StreamFull extends RuntimeException {

    public StreamFull(String message) {
        super(message, null, false, false);
    }

    /** Whether a write failed with this, directly or wrapped by a completion stage. */
    public static boolean is(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof StreamFull;
    }
}
