package org.fleetpipe.teltonika.payload;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/** IO element names, multipliers and units per device model. */
public final class IoDictionary {

    private static final IoDictionary EMPTY = new IoDictionary();

    private IoDictionary() {}

    /** A dictionary that knows no model: payloads carry raw ids only. */
    public static IoDictionary empty() {
        return EMPTY;
    }

    /** Writes {@code io_named} and {@code units} for a known model; nothing for an unknown one. */
    void writeNamed(JsonGenerator json, String model, String io) throws IOException {
        // Filled by the dictionary work (issue 32 item 3).
    }
}
