package org.fleetpipe.teltonika.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Copies a record's {@code io} object into its payload in one parse, noting on the way the values
 * the device's model has names for, then writes {@code io_named} and {@code units} from those
 * notes: the io is read once, not once to copy and again to name. One per thread.
 */
final class IoCopy {

    /** The stream's io object is small; a bigger one is not a record this server wrote. */
    static final int MAX_IO_CHARS = 64 * 1024;

    private final JsonFactory factory;
    /** Element, then its value (a BigInteger or a String), for each io value the model names. */
    private final List<Object> named = new ArrayList<>();
    private final List<String> units = new ArrayList<>();
    private char[] chars = new char[256];

    IoCopy(JsonFactory factory) {
        this.factory = factory;
    }

    /**
     * Copies the io in {@code entry}'s bytes {@code [start, end)} token by token (8-byte values
     * above 2^53 keep every digit), noting the values {@code elements} names (null: none).
     */
    void copy(JsonGenerator json, EntryBody entry, int start, int end, Map<Integer, IoElement> elements)
            throws IOException {
        named.clear();
        if (end - start <= MAX_IO_CHARS && copyPlain(json, entry.data(), start, end, elements)) {
            return;
        }
        named.clear();
        copyParsed(json, entry, start, end, elements);
    }

    /**
     * The io as the servers write it, copied as it is without a parser (a parser per record was a
     * quarter of the bridge's allocations): {@code {"<id>":<integer>|"<text>",...}} with no spaces,
     * ids of digits, integers without a leading zero, text of printable ASCII without quotes or
     * backslashes. Exactly what the parser's copy writes for such an io. False, having written
     * nothing, for anything else: the parser reads that.
     */
    boolean copyPlain(JsonGenerator json, byte[] data, int start, int end, Map<Integer, IoElement> elements)
            throws IOException {
        int at = start;
        if (at >= end || data[at++] != '{') {
            return false;
        }
        if (at < end && data[at] == '}') {
            at++;
        } else {
            while (true) {
                if (at >= end || data[at++] != '"') {
                    return false;
                }
                int idStart = at;
                int id = 0;
                while (at < end && data[at] >= '0' && data[at] <= '9' && at - idStart < 9) {
                    id = id * 10 + (data[at++] - '0');
                }
                if (at == idStart || at + 1 >= end || data[at] != '"' || data[at + 1] != ':') {
                    return false;
                }
                at += 2;
                IoElement element = elements == null ? null : elements.get(id);
                int valueStart = at;
                if (at < end && data[at] == '"') {
                    at++;
                    while (at < end && data[at] >= 0x20 && data[at] < 0x7f && data[at] != '"' && data[at] != '\\') {
                        at++;
                    }
                    if (at >= end || data[at] != '"') {
                        return false;
                    }
                    at++;
                    if (element != null) {
                        named.add(element);
                        named.add(new String(data, valueStart + 1, at - valueStart - 2, StandardCharsets.US_ASCII));
                    }
                } else {
                    int digitsStart = at < end && data[at] == '-' ? at + 1 : at;
                    at = digitsStart;
                    while (at < end && data[at] >= '0' && data[at] <= '9') {
                        at++;
                    }
                    int digits = at - digitsStart;
                    if (digits == 0 || (digits > 1 && data[digitsStart] == '0')
                            || (digitsStart > valueStart && data[digitsStart] == '0')) {
                        return false;
                    }
                    if (element != null) {
                        named.add(element);
                        named.add(new BigInteger(new String(data, valueStart, at - valueStart, StandardCharsets.US_ASCII)));
                    }
                }
                if (at < end && data[at] == ',') {
                    at++;
                    continue;
                }
                if (at < end && data[at] == '}') {
                    at++;
                    break;
                }
                return false;
            }
        }
        if (at != end) {
            return false;
        }
        int length = end - start;
        if (chars.length < length) {
            chars = new char[Math.max(length, 2 * chars.length)];
        }
        for (int i = 0; i < length; i++) {
            chars[i] = (char) data[start + i];
        }
        json.writeRawValue(chars, 0, length);
        return true;
    }

    /** Any io: token by token through a parser, which also finds what is not JSON. */
    void copyParsed(JsonGenerator json, EntryBody entry, int start, int end, Map<Integer, IoElement> elements)
            throws IOException {
        byte[] data = entry.data();
        boolean ascii = ascii(data, start, end);
        // Not ASCII: read as the text Redis' bytes decode to, as every reader of the stream does.
        String text = ascii ? null : entry.decode(start, end);
        if ((ascii ? end - start : text.length()) > MAX_IO_CHARS) {
            throw new MalformedEntryException("io longer than " + MAX_IO_CHARS + " characters");
        }
        try (JsonParser parser = ascii ? factory.createParser(data, start, end - start) : factory.createParser(text)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new MalformedEntryException("io is not a JSON object");
            }
            json.copyCurrentEvent(parser);
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                json.copyCurrentEvent(parser);
                IoElement element = elements == null ? null : elements.get(id(parser.currentName()));
                JsonToken value = parser.nextToken();
                json.copyCurrentStructure(parser);
                if (element != null && value == JsonToken.VALUE_NUMBER_INT) {
                    named.add(element);
                    named.add(parser.getBigIntegerValue());
                } else if (element != null && value == JsonToken.VALUE_STRING) {
                    named.add(element);
                    named.add(parser.getText());
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT) {
                throw new MalformedEntryException("io is not a JSON object");
            }
            json.copyCurrentEvent(parser);
            if (parser.nextToken() != null) {
                throw new MalformedEntryException("io has text after its object");
            }
        } catch (JsonProcessingException e) {
            throw new MalformedEntryException("io is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /** Writes {@code io_named} and {@code units} from what the last {@link #copy} noted. */
    void writeNamed(JsonGenerator json) throws IOException {
        units.clear();
        json.writeObjectFieldStart("io_named");
        for (int i = 0; i < named.size(); i += 2) {
            IoElement element = (IoElement) named.get(i);
            Object value = named.get(i + 1);
            if (value instanceof String string) {
                // A variable-length element's bytes: passed through, no scale, no unit.
                json.writeStringField(element.name(), string);
            } else {
                writeInteger(json, element, (BigInteger) value);
            }
        }
        json.writeEndObject();
        json.writeObjectFieldStart("units");
        for (int i = 0; i < units.size(); i += 2) {
            json.writeStringField(units.get(i), units.get(i + 1));
        }
        json.writeEndObject();
    }

    private void writeInteger(JsonGenerator json, IoElement element, BigInteger raw) throws IOException {
        if (raw.signum() < 0) {
            return;
        }
        Object named = element.fromInteger(raw);
        if (named instanceof String hex) {
            json.writeStringField(element.name(), hex);
        } else if (named instanceof BigDecimal number) {
            json.writeFieldName(element.name());
            // Plain digits, never an exponent: 12.5, 1000, -4.5.
            json.writeNumber(number.toPlainString());
            if (element.unit() != null) {
                units.add(element.name());
                units.add(element.unit());
            }
        }
    }

    /** An io key as an element id: 1 to 9 digits, else -1 (no element has it). */
    private static int id(String key) {
        int length = key.length();
        if (length < 1 || length > 9) {
            return -1;
        }
        int id = 0;
        for (int i = 0; i < length; i++) {
            char c = key.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            id = id * 10 + (c - '0');
        }
        return id;
    }

    private static boolean ascii(byte[] data, int start, int end) {
        for (int i = start; i < end; i++) {
            if (data[i] < 0) {
                return false;
            }
        }
        return true;
    }
}
