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
import java.util.regex.Pattern;

/**
 * Turns one telemetry stream entry into the documented JSON object (TELEMETRY.md, "The bridge
 * payload"): numbers as numbers, {@code io} as an object, the stream entry's id.
 */
public final class RecordPayload {

    /** The stream's integer fields, written as JSON numbers in this order. */
    private static final String[] INTEGER_FIELDS = {
        "ts", "rx", "priority", "alt", "angle", "sat", "speed", "event", "gen"
    };
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]{0,18})");
    private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,9})?");
    private static final Pattern IMEI = Pattern.compile("[0-9]{15}");
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
        String schema = required(fields, "schema");
        if (!schema.equals("1") && !schema.equals("2")) {
            throw new MalformedEntryException("unknown schema " + abbreviate(schema));
        }
        String imei = required(fields, "imei");
        if (!IMEI.matcher(imei).matches()) {
            throw new MalformedEntryException("imei is not 15 digits");
        }
        json.writeStartObject();
        json.writeStringField("id", entryId);
        json.writeFieldName("schema");
        json.writeNumber(Integer.parseInt(schema));
        json.writeStringField("imei", imei);
        json.writeStringField("codec", required(fields, "codec"));
        for (String name : INTEGER_FIELDS) {
            String value = fields.get(name);
            if (value == null) {
                if (!name.equals("gen")) {
                    throw new MalformedEntryException("missing field " + name);
                }
                continue;
            }
            json.writeFieldName(name);
            json.writeNumber(checked(name, value, INTEGER));
        }
        json.writeFieldName("lat");
        json.writeNumber(checked("lat", required(fields, "lat"), DECIMAL));
        json.writeFieldName("lon");
        json.writeNumber(checked("lon", required(fields, "lon"), DECIMAL));
        String valid = fields.get("valid");
        if (valid != null) {
            json.writeFieldName("valid");
            json.writeNumber(checked("valid", valid, INTEGER));
        }
        String instance = fields.get("instance");
        if (instance != null) {
            json.writeStringField("instance", instance);
        }
        json.writeFieldName("io");
        copyIo(json, required(fields, "io"));
        if (model != null) {
            json.writeStringField("model", model);
            dictionary.writeNamed(json, model, required(fields, "io"));
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

    private static String required(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null) {
            throw new MalformedEntryException("missing field " + name);
        }
        return value;
    }

    private static String checked(String name, String value, Pattern format) {
        if (!format.matcher(value).matches()) {
            throw new MalformedEntryException(name + " is not a number: " + abbreviate(value));
        }
        return value;
    }

    private static String abbreviate(String value) {
        return value.length() <= 24 ? value : value.substring(0, 24) + "...";
    }
}
