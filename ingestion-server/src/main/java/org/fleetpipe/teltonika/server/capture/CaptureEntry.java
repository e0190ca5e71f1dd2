package org.fleetpipe.teltonika.server.capture;

/**
 * One entry of a capture stream: a frame one way ({@code dir} {@code in} from the device, {@code out}
 * to it) as hex, with what became of it ({@code outcome}).
 *
 * @param id the stream id (empty for an entry not stored yet)
 * @param at when the server read or wrote it, epoch milliseconds
 */
public record CaptureEntry(String id, long at, String dir, String hex, String outcome) {

    public static final String IN = "in";
    public static final String OUT = "out";

    /** An entry to store, read or written now. */
    public static CaptureEntry of(String dir, String hex, String outcome) {
        return new CaptureEntry("", System.currentTimeMillis(), dir, hex, outcome);
    }
}
