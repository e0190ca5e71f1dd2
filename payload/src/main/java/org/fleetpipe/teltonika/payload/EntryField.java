package org.fleetpipe.teltonika.payload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of a telemetry stream entry (TELEMETRY.md, "The entry"), in the order the servers
 * write them: the one list the writer and every reader (the payload, the bridge, the reference
 * consumer) name an entry's fields by.
 */
public enum EntryField {
    IMEI("imei"),
    CODEC("codec"),
    TS("ts"),
    RX("rx"),
    PRIORITY("priority"),
    LAT("lat"),
    LON("lon"),
    ALT("alt"),
    ANGLE("angle"),
    SAT("sat"),
    SPEED("speed"),
    EVENT("event"),
    /** Codec 16 only: its entries have it, every other codec's do not. */
    GEN("gen"),
    IO("io"),
    VALID("valid"),
    INSTANCE("instance"),
    SCHEMA("schema");

    private static final Map<String, EntryField> BY_KEY = new HashMap<>();
    private static final List<EntryField> WITH_GEN;
    private static final List<EntryField> WITHOUT_GEN;

    static {
        List<EntryField> without = new ArrayList<>();
        for (EntryField field : values()) {
            BY_KEY.put(field.key, field);
            if (field != GEN) {
                without.add(field);
            }
        }
        WITH_GEN = List.of(values());
        WITHOUT_GEN = Collections.unmodifiableList(without);
    }

    private final String key;

    EntryField(String key) {
        this.key = key;
    }

    /** The field's name in the entry ({@code imei}). */
    public String key() {
        return key;
    }

    /** The field named {@code key}, or null for a name the contract does not have. */
    public static EntryField of(String key) {
        return BY_KEY.get(key);
    }

    /** The fields of one entry in written order: with {@link #GEN} for a Codec 16 record, else without. */
    public static List<EntryField> written(boolean withGen) {
        return withGen ? WITH_GEN : WITHOUT_GEN;
    }
}
