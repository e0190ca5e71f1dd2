package org.fleetpipe.teltonika.server.stream;

import java.util.Locale;

/** How far a consumer group must have got before the entries behind it may be trimmed. */
public enum RetentionMode {
    /** Kept until every group acknowledged them (XACK): a consumer that died mid-batch loses nothing. */
    ACKNOWLEDGED,
    /** Kept until every group was delivered them: less memory, but a crashed consumer's unacknowledged entries may go. */
    DELIVERED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode named {@code text} (any case), or null. */
    public static RetentionMode of(String text) {
        for (RetentionMode mode : values()) {
            if (mode.label().equalsIgnoreCase(text.trim())) {
                return mode;
            }
        }
        return null;
    }
}
