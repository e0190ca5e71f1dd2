package org.fleetpipe.teltonika.simulator.cli;

/** Bad command-line input, with a message that says what to type instead; or a request for help. */
public final class UsageException extends Exception {

    private final boolean helpRequested;

    public UsageException(String message) {
        this(message, false);
    }

    private UsageException(String message, boolean helpRequested) {
        super(message, null, false, false);
        this.helpRequested = helpRequested;
    }

    public static UsageException help() {
        return new UsageException("help", true);
    }

    public boolean helpRequested() {
        return helpRequested;
    }
}
