package org.fleetpipe.teltonika.bridge.stream;

/** Stream entry ids ({@code <ms>-<seq>}, two unsigned 64-bit numbers) in Redis' order. */
final class EntryIds {

    private EntryIds() {
    }

    /** Orders two complete ids as Redis does. */
    static int compare(String a, String b) {
        int byMillis = Long.compareUnsigned(millis(a), millis(b));
        return byMillis != 0 ? byMillis : Long.compareUnsigned(sequence(a), sequence(b));
    }

    /**
     * The id just before {@code id} ({@code 0-0} stays): what XGROUP takes as last delivered, and a
     * history read starts after, to begin at {@code id}. Across a millisecond, the previous one's
     * sequence {@link Long#MAX_VALUE}: above any sequence Redis gives.
     */
    static String before(String id) {
        long millis = millis(id);
        long sequence = sequence(id);
        if (sequence != 0) {
            return Long.toUnsignedString(millis) + "-" + Long.toUnsignedString(sequence - 1);
        }
        if (millis == 0) {
            return "0-0";
        }
        return Long.toUnsignedString(millis - 1) + "-" + Long.MAX_VALUE;
    }

    private static long millis(String id) {
        int dash = id.indexOf('-');
        return Long.parseUnsignedLong(dash < 0 ? id : id.substring(0, dash));
    }

    private static long sequence(String id) {
        int dash = id.indexOf('-');
        return dash < 0 ? 0 : Long.parseUnsignedLong(id.substring(dash + 1));
    }
}
