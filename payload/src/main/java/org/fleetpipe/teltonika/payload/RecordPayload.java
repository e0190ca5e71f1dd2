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
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Turns one telemetry stream entry into the documented JSON object (TELEMETRY.md, "The bridge
 * payload"): numbers as numbers, {@code io} as an object, the stream entry's id. Written straight
 * from the entry's bytes, with a generator kept per thread (issue 41 item 4).
 */
public final class RecordPayload {

    /** The integer fields, in the payload's order (TELEMETRY.md, "The bridge payload"); gen only when present. */
    private static final EntryField[] INTEGERS = {TS, RX, PRIORITY, ALT, ANGLE, SAT, SPEED, EVENT, GEN};
    private static final EntryField[] DEGREES = {LAT, LON};
    private static final SerializableString[] KEYS = new SerializableString[EntryField.values().length];
    private static final SerializableString ID = new SerializedString("id");
    private static final SerializableString MODEL = new SerializedString("model");

    static {
        for (EntryField field : EntryField.values()) {
            KEYS[field.ordinal()] = new SerializedString(field.key());
        }
    }

    /** No separator between root values: one generator writes record after record, each taken alone. */
    private static final JsonFactory JSON = new JsonFactoryBuilder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2).build())
            .rootValueSeparator((String) null)
            .build();

    private final IoDictionary dictionary;
    private final ThreadLocal<Writer> writers = ThreadLocal.withInitial(Writer::new);

    public RecordPayload(IoDictionary dictionary) {
        this.dictionary = dictionary;
    }

    /** What one thread reuses from record to record. */
    private static final class Writer {
        final PayloadOutput output = new PayloadOutput(JSON);
        final IoCopy io = new IoCopy(JSON);
        final char[] digits = new char[32];
    }

    /**
     * The record's JSON, without a line end: the entry as a map (the reference consumer's reads).
     *
     * @param model the device model when one is known for the IMEI, else null
     * @throws MalformedEntryException when the entry is not a record of a known schema
     */
    public byte[] toJson(String entryId, Map<String, String> fields, String model) {
        return toJson(entryId, EntryBody.of(fields), model);
    }

    /**
     * The record's JSON, without a line end.
     *
     * @param model the device model when one is known for the IMEI, else null
     * @throws MalformedEntryException when the entry is not a record of a known schema
     */
    public byte[] toJson(String entryId, EntryBody entry, String model) {
        Writer writer = writers.get();
        try {
            write(writer, writer.output.generator(), entryId, entry, model);
            return writer.output.take();
        } catch (IOException e) {
            writer.output.discard();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            writer.output.discard();
            throw e;
        }
    }

    private void write(Writer writer, JsonGenerator json, String entryId, EntryBody entry, String model)
            throws IOException {
        byte[] data = entry.data();
        int schemaAt = required(entry, SCHEMA);
        int schemaEnd = entry.end(SCHEMA);
        if (schemaEnd - schemaAt != 1 || (data[schemaAt] != '1' && data[schemaAt] != '2')) {
            throw new MalformedEntryException("unknown schema " + abbreviate(entry.decode(schemaAt, schemaEnd)));
        }
        int imeiAt = required(entry, IMEI);
        if (entry.end(IMEI) - imeiAt != 15 || !digits(data, imeiAt, entry.end(IMEI))) {
            throw new MalformedEntryException("imei is not 15 digits");
        }
        json.writeStartObject();
        json.writeFieldName(ID);
        json.writeString(entryId);
        json.writeFieldName(KEYS[SCHEMA.ordinal()]);
        json.writeNumber(data[schemaAt] - '0');
        writeText(json, entry, IMEI, imeiAt);
        writeText(json, entry, CODEC, required(entry, CODEC));
        for (EntryField field : INTEGERS) {
            int at = entry.start(field);
            if (at < 0) {
                if (field != GEN) {
                    throw new MalformedEntryException("missing field " + field.key());
                }
                continue;
            }
            if (!integer(data, at, entry.end(field))) {
                throw notANumber(entry, field);
            }
            writeNumber(writer, json, entry, field, at);
        }
        for (EntryField field : DEGREES) {
            int at = required(entry, field);
            if (!decimal(data, at, entry.end(field))) {
                throw notANumber(entry, field);
            }
            writeNumber(writer, json, entry, field, at);
        }
        int validAt = entry.start(VALID);
        if (validAt >= 0) {
            if (!integer(data, validAt, entry.end(VALID))) {
                throw notANumber(entry, VALID);
            }
            writeNumber(writer, json, entry, VALID, validAt);
        }
        int instanceAt = entry.start(INSTANCE);
        if (instanceAt >= 0) {
            writeText(json, entry, INSTANCE, instanceAt);
        }
        int ioAt = required(entry, IO);
        var elements = model == null ? null : dictionary.elementsOf(model);
        json.writeFieldName(KEYS[IO.ordinal()]);
        writer.io.copy(json, entry, ioAt, entry.end(IO), elements);
        if (model != null) {
            json.writeFieldName(MODEL);
            json.writeString(model);
            if (elements != null) {
                writer.io.writeNamed(json);
            }
        }
        json.writeEndObject();
    }

    /** A validated number: its ASCII digits as they are. */
    private static void writeNumber(Writer writer, JsonGenerator json, EntryBody entry, EntryField field, int at)
            throws IOException {
        byte[] data = entry.data();
        int length = entry.end(field) - at;
        for (int i = 0; i < length; i++) {
            writer.digits[i] = (char) data[at + i];
        }
        json.writeFieldName(KEYS[field.ordinal()]);
        json.writeNumber(writer.digits, 0, length);
    }

    /** Plain ASCII as it is; anything else as the text the bytes decode to, escaped as JSON needs. */
    private static void writeText(JsonGenerator json, EntryBody entry, EntryField field, int at) throws IOException {
        byte[] data = entry.data();
        int end = entry.end(field);
        json.writeFieldName(KEYS[field.ordinal()]);
        if (plain(data, at, end)) {
            json.writeRawUTF8String(data, at, end - at);
        } else {
            json.writeString(entry.decode(at, end));
        }
    }

    private static int required(EntryBody entry, EntryField field) {
        int at = entry.start(field);
        if (at < 0) {
            throw new MalformedEntryException("missing field " + field.key());
        }
        return at;
    }

    /** An optional minus, then 1 to 19 digits without a leading zero (or just 0). */
    private static boolean integer(byte[] data, int from, int to) {
        int start = from < to && data[from] == '-' ? from + 1 : from;
        int length = to - start;
        return length >= 1 && length <= 19 && digits(data, start, to) && (length == 1 || data[start] != '0');
    }

    /** Degrees as the servers write them: up to 4 integer digits, up to 9 decimals, no exponent. */
    private static boolean decimal(byte[] data, int from, int to) {
        int dot = -1;
        for (int i = from; i < to; i++) {
            if (data[i] == '.') {
                dot = i;
                break;
            }
        }
        int wholeEnd = dot < 0 ? to : dot;
        int start = from < wholeEnd && data[from] == '-' ? from + 1 : from;
        int wholeLength = wholeEnd - start;
        boolean ok = wholeLength >= 1 && wholeLength <= 4 && digits(data, start, wholeEnd)
                && (wholeLength == 1 || data[start] != '0');
        if (ok && dot >= 0) {
            int decimals = to - dot - 1;
            ok = decimals >= 1 && decimals <= 9 && digits(data, dot + 1, to);
        }
        return ok;
    }

    private static boolean digits(byte[] data, int from, int to) {
        for (int i = from; i < to; i++) {
            if (data[i] < '0' || data[i] > '9') {
                return false;
            }
        }
        return true;
    }

    /** Printable ASCII that JSON takes without an escape. */
    private static boolean plain(byte[] data, int from, int to) {
        for (int i = from; i < to; i++) {
            byte b = data[i];
            if (b < 0x20 || b > 0x7e || b == '"' || b == '\\') {
                return false;
            }
        }
        return true;
    }

    private static MalformedEntryException notANumber(EntryBody entry, EntryField field) {
        return new MalformedEntryException(field.key() + " is not a number: "
                + abbreviate(entry.decode(entry.start(field), entry.end(field))));
    }

    private static String abbreviate(String value) {
        return value.length() <= 24 ? value : value.substring(0, 24) + "...";
    }
}
