package org.fleetpipe.teltonika.consumer;

import java.math.BigDecimal;
import java.util.Map;
import org.fleetpipe.teltonika.payload.EntryField;

/**
 * An entry's {@code valid} (TELEMETRY.md), in either schema: schema 2 entries carry it; a schema 1
 * entry, written before the servers added it, gets it here from the same rule (with the servers'
 * default CLOCK_SKEW_FUTURE, 10 minutes). Read it before trusting {@code lat}, {@code lon} and {@code ts}.
 */
public final class EntryValidity {

    /** 2010-01-01T00:00:00Z. */
    static final long EARLIEST_MILLIS = 1_262_304_000_000L;
    static final long FUTURE_SKEW_MILLIS = 10 * 60 * 1000L;
    private static final BigDecimal MAX_LATITUDE = BigDecimal.valueOf(90);
    private static final BigDecimal MAX_LONGITUDE = BigDecimal.valueOf(180);

    private EntryValidity() {
    }

    /** {@code "1"} or {@code "0"}; null when the entry holds neither {@code valid} nor what the rule needs. */
    public static String of(Map<String, String> entry) {
        String stored = entry.get(EntryField.VALID.key());
        if (stored != null) {
            return stored;
        }
        try {
            long ts = Long.parseLong(entry.get(EntryField.TS.key()));
            long rx = Long.parseLong(entry.get(EntryField.RX.key()));
            int satellites = Integer.parseInt(entry.get(EntryField.SAT.key()));
            BigDecimal lat = new BigDecimal(entry.get(EntryField.LAT.key()));
            BigDecimal lon = new BigDecimal(entry.get(EntryField.LON.key()));
            boolean noFix = satellites == 0 && lat.signum() == 0 && lon.signum() == 0
                    || lat.abs().compareTo(MAX_LATITUDE) > 0 || lon.abs().compareTo(MAX_LONGITUDE) > 0;
            boolean clock = ts < EARLIEST_MILLIS || ts - rx > FUTURE_SKEW_MILLIS;
            return noFix || clock ? "0" : "1";
        } catch (RuntimeException missingOrNotANumber) {
            return null;
        }
    }
}
