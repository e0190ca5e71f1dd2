package org.fleetpipe.teltonika.server.stream;

/** Reading Redis stream ids ({@code <ms>-<seq>}). */
final class StreamIds {

    private StreamIds() {
    }

    /** The id's time part (ms since the epoch, as Redis clocked it), or -1 for an empty or odd id. */
    static long millis(String id) {
        if (id == null || id.isEmpty()) {
            return -1;
        }
        int dash = id.indexOf('-');
        try {
            return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
