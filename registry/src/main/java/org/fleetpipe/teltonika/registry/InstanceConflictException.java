package org.fleetpipe.teltonika.registry;

/** The heartbeat key of a fresh instance id already exists: something else writes in this keyspace. */
public final class InstanceConflictException extends RuntimeException {

    public InstanceConflictException(String message) {
        super(message);
    }
}
