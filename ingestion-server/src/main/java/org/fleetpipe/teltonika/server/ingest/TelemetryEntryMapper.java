package org.fleetpipe.teltonika.server.ingest;

import java.util.List;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/** Turns a record into the stream entry fields of the contract, in the contract's order. */
public final class TelemetryEntryMapper {

    private final Supplier<String> instanceId;

    /** {@code instanceId} is asked per record: the id changes if the instance has to re-incarnate. */
    public TelemetryEntryMapper(Supplier<String> instanceId) {
        this.instanceId = instanceId;
    }

    public TelemetryEntryMapper(String instanceId) {
        this(() -> instanceId);
    }

    /** Appends field, value, field, value... to {@code out}; returns the number of strings added. */
    public int appendFields(Imei imei, CodecId codec, AvlRecord r, long receivedAtMillis, List<String> out) {
        int before = out.size();
        GpsElement gps = r.gps();
        add(out, "imei", imei.value());
        add(out, "codec", codec.label());
        add(out, "ts", Long.toString(r.timestamp()));
        add(out, "rx", Long.toString(receivedAtMillis));
        add(out, "priority", Integer.toString(r.priority()));
        add(out, "lat", degrees(gps.latitude()));
        add(out, "lon", degrees(gps.longitude()));
        add(out, "alt", Integer.toString(gps.altitude()));
        add(out, "angle", Integer.toString(gps.angle()));
        add(out, "sat", Integer.toString(gps.satellites()));
        add(out, "speed", Integer.toString(gps.speed()));
        add(out, "event", Integer.toString(r.eventIoId()));
        if (r.hasGenerationType()) {
            add(out, "gen", Integer.toString(r.generationType()));
        }
        add(out, "io", ioJson(r.io()));
        add(out, "instance", instanceId.get());
        return out.size() - before;
    }

    /**
     * Degrees x 10^7 as a plain decimal: exact, never an exponent, no trailing zeros (what
     * BigDecimal's stripTrailingZeros().toPlainString() gives, without a BigDecimal per coordinate
     * on the hot path).
     */
    static String degrees(int raw) {
        long value = raw;
        boolean negative = value < 0;
        long magnitude = Math.abs(value);
        long whole = magnitude / 10_000_000L;
        long fraction = magnitude % 10_000_000L;
        StringBuilder sb = new StringBuilder(13);
        if (negative) {
            sb.append('-');
        }
        sb.append(whole);
        if (fraction != 0) {
            String digits = Long.toString(fraction + 10_000_000L).substring(1);
            int end = digits.length();
            while (digits.charAt(end - 1) == '0') {
                end--;
            }
            sb.append('.').append(digits, 0, end);
        }
        return sb.toString();
    }

    /** Numbers stay numbers; variable-length values become lowercase hex strings. Keys need no escaping. */
    static String ioJson(List<IoElement> io) {
        StringBuilder sb = new StringBuilder(io.size() * 12 + 2).append('{');
        for (int i = 0; i < io.size(); i++) {
            IoElement e = io.get(i);
            if (i > 0) {
                sb.append(',');
            }
            sb.append('"').append(e.id()).append("\":");
            if (e instanceof IoElement.Variable) {
                sb.append('"').append(e.valueText()).append('"');
            } else {
                sb.append(e.valueText());
            }
        }
        return sb.append('}').toString();
    }

    private static void add(List<String> out, String field, String value) {
        out.add(field);
        out.add(value);
    }
}
