package org.fleetpipe.teltonika.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;

/**
 * Telemetry stream entries as CONTRACT.md describes them, built from what a test sent, never
 * from the server's own mapper. {@code rx} is left out: only the server knows it, so tests check
 * it against the time window of the send.
 */
public final class ExpectedEntries {

    private ExpectedEntries() {
    }

    /** The contract's field order; {@code gen} only for Codec 16. */
    public static List<String> fieldOrder(boolean withGeneration) {
        List<String> fields = new ArrayList<>(List.of("imei", "codec", "ts", "rx", "priority", "lat", "lon", "alt",
                "angle", "sat", "speed", "event"));
        if (withGeneration) {
            fields.add("gen");
        }
        fields.add("io");
        fields.add("valid");
        fields.add("instance");
        fields.add("schema");
        return fields;
    }

    public static List<Map<String, String>> of(String imei, AvlPacket packet, String instance) {
        List<Map<String, String>> out = new ArrayList<>();
        for (AvlRecord r : packet.records()) {
            Map<String, String> e = new LinkedHashMap<>();
            e.put("imei", imei);
            e.put("codec", packet.codec().label());
            e.put("ts", Long.toString(r.timestamp()));
            e.put("priority", Integer.toString(r.priority()));
            e.put("lat", degrees(r.gps().latitude()));
            e.put("lon", degrees(r.gps().longitude()));
            e.put("alt", Integer.toString(r.gps().altitude()));
            e.put("angle", Integer.toString(r.gps().angle()));
            e.put("sat", Integer.toString(r.gps().satellites()));
            e.put("speed", Integer.toString(r.gps().speed()));
            e.put("event", Integer.toString(r.eventIoId()));
            if (r.hasGenerationType()) {
                e.put("gen", Integer.toString(r.generationType()));
            }
            e.put("io", sorted(IoJson.expected(r.io())));
            e.put("valid", valid(r.timestamp(), r.gps().satellites(), r.gps().latitude(), r.gps().longitude()));
            e.put("instance", instance);
            e.put("schema", "2");
            out.add(e);
        }
        return out;
    }

    /** From the decoded values the golden vector file lists for a frame. */
    public static List<Map<String, String>> of(String imei, GoldenVectors.Vector vector, String instance) {
        List<Map<String, String>> out = new ArrayList<>();
        for (JsonNode n : vector.json().get("expected")) {
            Map<String, String> e = new LinkedHashMap<>();
            e.put("imei", imei);
            e.put("codec", n.get("codec").asText());
            for (String field : List.of("ts", "priority")) {
                e.put(field, n.get(field).asText());
            }
            e.put("lat", plain(n.get("lat")));
            e.put("lon", plain(n.get("lon")));
            for (String field : List.of("alt", "angle", "sat", "speed", "event")) {
                e.put(field, n.get(field).asText());
            }
            if (n.has("gen")) {
                e.put("gen", n.get("gen").asText());
            }
            e.put("io", sorted(IoJson.canonical(n.get("io"))));
            e.put("valid", valid(n.get("ts").asLong(), n.get("sat").asInt(), n.get("lat").decimalValue(),
                    n.get("lon").decimalValue()));
            e.put("instance", instance);
            e.put("schema", "2");
            out.add(e);
        }
        return out;
    }

    /**
     * A stored entry in the form {@link #of} builds: {@code rx} dropped and {@code io} canonical,
     * so two lists compare with one equality and a failure shows the whole entry.
     */
    public static Map<String, String> comparable(Map<String, String> stored) {
        Map<String, String> e = new LinkedHashMap<>(stored);
        e.remove("rx");
        if (e.containsKey("io")) {
            e.put("io", sorted(IoJson.canonical(e.get("io"))));
        }
        return e;
    }

    /**
     * TELEMETRY.md's rule, written out again from the document: no fix (no satellites at 0/0, or a
     * coordinate out of range), a clock before 2010, or one more than the default 10 minutes ahead
     * (of now: the test's send, which {@code rx} follows within the test's time).
     */
    public static String valid(long ts, int satellites, BigDecimal lat, BigDecimal lon) {
        boolean clockPast = ts < Instant.parse("2010-01-01T00:00:00Z").toEpochMilli();
        boolean clockFuture = ts > System.currentTimeMillis() + Duration.ofMinutes(10).toMillis();
        boolean noFix = satellites == 0 && lat.signum() == 0 && lon.signum() == 0
                || lat.abs().compareTo(BigDecimal.valueOf(90)) > 0 || lon.abs().compareTo(BigDecimal.valueOf(180)) > 0;
        return clockPast || clockFuture || noFix ? "0" : "1";
    }

    private static String valid(long ts, int satellites, int rawLat, int rawLon) {
        return valid(ts, satellites, BigDecimal.valueOf(rawLat).movePointLeft(7), BigDecimal.valueOf(rawLon).movePointLeft(7));
    }

    // Key order is the server's choice (wire order); the values and their JSON types are not.
    private static String sorted(Map<String, String> io) {
        return new TreeMap<>(io).toString();
    }

    /** Degrees x 10^7 as the contract's plain decimal. */
    static String degrees(int raw) {
        return plain(BigDecimal.valueOf(raw).movePointLeft(7));
    }

    private static String plain(JsonNode number) {
        return plain(number.decimalValue());
    }

    private static String plain(BigDecimal value) {
        return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
    }
}
