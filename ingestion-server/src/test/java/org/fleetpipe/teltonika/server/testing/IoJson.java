package org.fleetpipe.teltonika.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/**
 * The {@code io} field in a comparable form: id to value text, where a JSON string keeps its
 * quotes. That way a number stored as a string (or a hex value stored as a number) is a mismatch,
 * while key order and Jackson's choice of IntNode/LongNode/BigIntegerNode are not.
 */
public final class IoJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private IoJson() {
    }

    public static Map<String, String> canonical(String json) {
        try {
            return canonical(JSON.readTree(json));
        } catch (IOException e) {
            throw new UncheckedIOException("io field is not JSON: " + json, e);
        }
    }

    public static Map<String, String> canonical(JsonNode object) {
        if (!object.isObject()) {
            throw new AssertionError("io must be a JSON object: " + object);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            JsonNode v = e.getValue();
            if (v.isTextual()) {
                out.put(e.getKey(), '"' + v.textValue() + '"');
            } else if (v.isIntegralNumber()) {
                out.put(e.getKey(), v.bigIntegerValue().toString());
            } else {
                throw new AssertionError("io value of " + e.getKey() + " is neither an integer nor a string: " + v);
            }
        }
        return out;
    }

    /** What the contract says the elements must look like. */
    public static Map<String, String> expected(List<IoElement> io) {
        Map<String, String> out = new LinkedHashMap<>();
        for (IoElement e : io) {
            String value = e instanceof IoElement.Fixed f ? Long.toUnsignedString(f.value())
                    : '"' + ((IoElement.Variable) e).valueText() + '"';
            out.put(Integer.toString(e.id()), value);
        }
        return out;
    }
}
