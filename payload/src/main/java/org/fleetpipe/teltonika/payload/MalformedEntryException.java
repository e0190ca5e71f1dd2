package org.fleetpipe.teltonika.payload;

/** A stream entry that is not a telemetry record of a schema this code knows. */
public final class MalformedEntryException extends RuntimeException {

    public MalformedEntryException(String message) {
        super(message, null, false, false);
    }
}
