package org.fleetpipe.teltonika.server.command;

/**
 * A command moved from its queue to this instance's in-flight place, to be sent now.
 *
 * @param attempt which send of the command this is; with the id it names this send's in-flight entry
 */
public record TakenCommand(String id, int codec, String text, long attempt) {

    /** The in-flight entry of this send: {@code id:attempt}. */
    public String token() {
        return id + ":" + attempt;
    }
}
