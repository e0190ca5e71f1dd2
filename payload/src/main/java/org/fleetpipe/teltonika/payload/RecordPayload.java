package org.fleetpipe.teltonika.payload;

import static org.fleetpipe.teltonika.payload.EntryField.ALT;
import static org.fleetpipe.teltonika.payload.EntryField.ANGLE;
import static org.fleetpipe.teltonika.payload.EntryField.CODEC;
import static org.fleetpipe.teltonika.payload.EntryField.EVENT;
import static org.fleetpipe.teltonika.payload.EntryField.GEN;
import static org.fleetpipe.teltonika.payload.EntryField.IMEI;
import static org.fleetpipe.teltonika.payload.EntryField.INSTANCE;
import static org.fleetpipe.teltonika.payload.EntryField.IO;
import static org.fleetpipe.teltonika.payload.EntryField.LAT;
import static org.fleetpipe.teltonika.payload.EntryField.LON;
import static org.fleetpipe.teltonika.payload.EntryField.PRIORITY;
import static org.fleetpipe.teltonika.payload.EntryField.RX;
import static org.fleetpipe.teltonika.payload.EntryField.SAT;
import static org.fleetpipe.teltonika.payload.EntryField.SCHEMA;
import static org.fleetpipe.teltonika.payload.EntryField.SPEED;
import static org.fleetpipe.teltonika.payload.EntryField.TS;
import static org.fleetpipe.teltonika.payload.EntryField.VALID;

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

    private static final int FIELD_COUNT = EntryField.values().length;
    /** The integer fields, in the payload's order (TELEMETRY.md, "The bridge payload"); gen only when present. */
    private static final EntryField[] INTEGERS = {TS, RX, PRIORITY, ALT, ANGLE, SAT, SPEED, EVENT, GEN};
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
        for (Map.Entry<String, String> entry : fields.entrySet()) {
            EntryField field = EntryField.of(entry.getKey());
            if (field != null) {
                values[field.ordinal()] = entry.getValue();
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
        json.writeFieldName(SCHEMA.key());
        json.writeNumber(schema.charAt(0) - '0');
        json.writeStringField(IMEI.key(), imei);
        json.writeStringField(CODEC.key(), required(values, CODEC));
        for (EntryField field : INTEGERS) {
            String value = values[field.ordinal()];
            if (value == null) {
                if (field != GEN) {
                    throw new MalformedEntryException("missing field " + field.key());
                }
                continue;
            }
            json.writeFieldName(field.key());
            json.writeNumber(integer(field, value));
        }
        json.writeFieldName(LAT.key());
        json.writeNumber(decimal(LAT, required(values, LAT)));
        json.writeFieldName(LON.key());
        json.writeNumber(decimal(LON, required(values, LON)));
        if (values[VALID.ordinal()] != null) {
            json.writeFieldName(VALID.key());
            json.writeNumber(integer(VALID, values[VALID.ordinal()]));
        }
        if (values[INSTANCE.ordinal()] != null) {
            json.writeStringField(INSTANCE.key(), values[INSTANCE.ordinal()]);
        }
        String io = required(values, IO);
        json.writeFieldName(IO.key());
        copyIo(json, io);
        if (model != null) {
            json.writeStringField("model", model);
            dictionary.writeNamed(json, model, io);
        }
        json.writeEndObject();
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

    private static String required(String[] values, EntryField field) {
        String value = values[field.ordinal()];
        if (value == null) {
            throw new MalformedEntryException("missing field " + field.key());
        }
        return value;
    }

    /** An optional minus, then 1 to 19 digits without a leading zero (or just 0). */
    private static String integer(EntryField field, String value) {
        int start = value.startsWith("-") ? 1 : 0;
        int length = value.length() - start;
        if (length < 1 || length > 19 || !digits(value, start) || (length > 1 && value.charAt(start) == '0')) {
            throw notANumber(field, value);
        }
        return value;
    }

    /** Degrees as the servers write them: up to 4 integer digits, up to 9 decimals, no exponent. */
    private static String decimal(EntryField field, String value) {
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
            throw notANumber(field, value);
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

    private static MalformedEntryException notANumber(EntryField field, String value) {
        return new MalformedEntryException(field.key() + " is not a number: " + abbreviate(value));
    }

    private static String abbreviate(String value) {
        return value.length() <= 24 ? value : value.substring(0, 24) + "...";
    }
}
