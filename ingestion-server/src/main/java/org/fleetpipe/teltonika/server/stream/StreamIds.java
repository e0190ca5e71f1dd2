package org.fleetpipe.teltonika.server.stream;

/** Reading Redis stream ids ({@code <ms>-<seq>}). */
final class StreamIds {

    private StreamIds() {
    }

    /** The earlier of two ids; an empty one counts as none. */
    static String earlier(String a, String b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isEmpty() || compare(a, b) <= 0 ? a : b;
    }

    /** The later of two ids; an empty one counts as none. */
    static String later(String a, String b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isEmpty() || compare(a, b) >= 0 ? a : b;
    }

    /** Orders two non-empty ids as Redis does: by time, then sequence. */
    static int compare(String a, String b) {
        int c = Long.compare(millis(a), millis(b));
        return c != 0 ? c : Long.compare(sequence(a), sequence(b));
    }

    private static long sequence(String id) {
        int dash = id.indexOf('-');
        try {
            return dash < 0 ? 0 : Long.parseLong(id.substring(dash + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
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
