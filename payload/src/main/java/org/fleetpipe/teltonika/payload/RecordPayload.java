package org.fleetpipe.teltonika.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Turns one telemetry stream entry into the documented JSON object (TELEMETRY.md, "The bridge
 * payload"): numbers as numbers, {@code io} as an object, the stream entry's id.
 */
public final class RecordPayload {

    /** The fields a record has; the integers from TS to GEN are written in this order. */
    private static final String[] NAMES = {
        "schema", "imei", "codec", "ts", "rx", "priority", "alt", "angle", "sat", "speed", "event", "gen",
        "lat", "lon", "valid", "instance", "io"
    };
    private static final int SCHEMA = 0;
    private static final int IMEI = 1;
    private static final int CODEC = 2;
    private static final int TS = 3;
    private static final int RX = 4;
    private static final int PRIORITY = 5;
    private static final int ALT = 6;
    private static final int ANGLE = 7;
    private static final int SAT = 8;
    private static final int SPEED = 9;
    private static final int EVENT = 10;
    private static final int GEN = 11;
    private static final int LAT = 12;
    private static final int LON = 13;
    private static final int VALID = 14;
    private static final int INSTANCE = 15;
    private static final int IO = 16;
    private static final int FIELD_COUNT = 17;
    /** The stream's io object is small; a bigger one is not a record this server wrote. */
    private static final int MAX_IO_CHARS = 64 * 1024;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2).build())
            .build();

    private final IoDictionary dictionary;

    public RecordPayload(IoDictionary dictionary) {
        this.dictionary = dictionary;
    }

    /**
     * The record's JSON, without a line end.
     *
     * @param model the device model when one is known for the IMEI, else null
     * @throws MalformedEntryException when the entry is not a record of a known schema
     */
    public byte[] toJson(String entryId, Map<String, String> fields, String model) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(384);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            write(json, entryId, fields, model);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private void write(JsonGenerator json, String entryId, Map<String, String> fields, String model)
            throws IOException {
        // One pass over the entry instead of a lookup per field: the maps are fresh from the
        // Redis reply, and hashing into each of them cost more than writing the JSON.
        String[] values = new String[FIELD_COUNT];
        for (Map.Entry<String, String> field : fields.entrySet()) {
            int slot = slot(field.getKey());
            if (slot >= 0) {
                values[slot] = field.getValue();
            }
        }
        String schema = required(values, SCHEMA);
        if (!schema.equals("1") && !schema.equals("2")) {
            throw new MalformedEntryException("unknown schema " + abbreviate(schema));
        }
        String imei = required(values, IMEI);
        if (imei.length() != 15 || !digits(imei, 0)) {
            throw new MalformedEntryException("imei is not 15 digits");
        }
        json.writeStartObject();
        json.writeStringField("id", entryId);
        json.writeFieldName("schema");
        json.writeNumber(schema.charAt(0) - '0');
        json.writeStringField("imei", imei);
        json.writeStringField("codec", required(values, CODEC));
        for (int slot = TS; slot <= GEN; slot++) {
            String value = values[slot];
            if (value == null) {
                if (slot != GEN) {
                    throw new MalformedEntryException("missing field " + NAMES[slot]);
                }
                continue;
            }
            json.writeFieldName(NAMES[slot]);
            json.writeNumber(integer(slot, value));
        }
        json.writeFieldName("lat");
        json.writeNumber(decimal(LAT, required(values, LAT)));
        json.writeFieldName("lon");
        json.writeNumber(decimal(LON, required(values, LON)));
        if (values[VALID] != null) {
            json.writeFieldName("valid");
            json.writeNumber(integer(VALID, values[VALID]));
        }
        if (values[INSTANCE] != null) {
            json.writeStringField("instance", values[INSTANCE]);
        }
        String io = required(values, IO);
        json.writeFieldName("io");
        copyIo(json, io);
        if (model != null) {
            json.writeStringField("model", model);
            dictionary.writeNamed(json, model, io);
        }
        json.writeEndObject();
    }

    private static int slot(String name) {
        return switch (name) {
            case "schema" -> SCHEMA;
            case "imei" -> IMEI;
            case "codec" -> CODEC;
            case "ts" -> TS;
            case "rx" -> RX;
            case "priority" -> PRIORITY;
            case "alt" -> ALT;
            case "angle" -> ANGLE;
            case "sat" -> SAT;
            case "speed" -> SPEED;
            case "event" -> EVENT;
            case "gen" -> GEN;
            case "lat" -> LAT;
            case "lon" -> LON;
            case "valid" -> VALID;
            case "instance" -> INSTANCE;
            case "io" -> IO;
            default -> -1;
        };
    }

    /** Copies the io object token by token: 8-byte values above 2^53 keep every digit. */
    private static void copyIo(JsonGenerator json, String io) throws IOException {
        if (io.length() > MAX_IO_CHARS) {
            throw new MalformedEntryException("io longer than " + MAX_IO_CHARS + " characters");
        }
        try (JsonParser parser = JSON.createParser(io)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new MalformedEntryException("io is not a JSON object");
            }
            json.copyCurrentStructure(parser);
            if (parser.nextToken() != null) {
                throw new MalformedEntryException("io has text after its object");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new MalformedEntryException("io is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static String required(String[] values, int slot) {
        String value = values[slot];
        if (value == null) {
            throw new MalformedEntryException("missing field " + NAMES[slot]);
        }
        return value;
    }

    /** An optional minus, then 1 to 19 digits without a leading zero (or just 0). */
    private static String integer(int slot, String value) {
        int start = value.startsWith("-") ? 1 : 0;
        int length = value.length() - start;
        if (length < 1 || length > 19 || !digits(value, start) || (length > 1 && value.charAt(start) == '0')) {
            throw notANumber(slot, value);
        }
        return value;
    }

    /** Degrees as the servers write them: up to 4 integer digits, up to 9 decimals, no exponent. */
    private static String decimal(int slot, String value) {
        int dot = value.indexOf('.');
        String whole = dot < 0 ? value : value.substring(0, dot);
        int start = whole.startsWith("-") ? 1 : 0;
        int wholeLength = whole.length() - start;
        boolean ok = wholeLength >= 1 && wholeLength <= 4 && digits(whole, start)
                && (wholeLength == 1 || whole.charAt(start) != '0');
        if (ok && dot >= 0) {
            int decimals = value.length() - dot - 1;
            ok = decimals >= 1 && decimals <= 9 && digits(value, dot + 1);
        }
        if (!ok) {
            throw notANumber(slot, value);
        }
        return value;
    }

    private static boolean digits(String text, int from) {
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static MalformedEntryException notANumber(int slot, String value) {
        return new MalformedEntryException(NAMES[slot] + " is not a number: " + abbreviate(value));
    }

    private static String abbreviate(String value) {
        return value.length() <= 24 ? value : value.substring(0, 24) + "...";
    }
}
