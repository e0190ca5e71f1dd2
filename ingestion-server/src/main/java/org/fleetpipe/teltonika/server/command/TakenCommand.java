package org.fleetpipe.teltonika.server.command;

/** A command moved from its queue to this instance's in-flight place, to be sent now. */
public record TakenCommand(String id, int codec, String text) {
}
