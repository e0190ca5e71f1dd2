package org.fleetpipe.teltonika.server.http.routes;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;
import org.fleetpipe.teltonika.server.http.ApiRequest;

/**
 * A request's JSON body, read strictly: one object, no key twice, nothing after it, no field the
 * call does not know (a typo such as {@code wait} for {@code wait_ms} would otherwise be ignored
 * silently), and each field of its exact JSON type: {@code "14"}, {@code 12.9} and {@code true} are
 * not numbers of a field that takes a whole number.
 */
final class JsonBody {

    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonBody() {
    }

    /** The body as an object, or null when it is not exactly one JSON object. */
    static ObjectNode object(ApiRequest call) {
        try (ByteBufInputStream in = new ByteBufInputStream(call.request().content())) {
            JsonNode body = STRICT.readTree(in);
            return body instanceof ObjectNode object ? object : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The first field of {@code body} not in {@code known}, or null when there is none. */
    static String unknownField(ObjectNode body, Set<String> known) {
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                return name;
            }
        }
        return null;
    }

    /**
     * The field {@code name} as a whole number in {@code min..max}; {@code absent} when the body has no
     * such field; null when it is anything else (a string, a fraction, a boolean, null, out of range).
     */
    static Long wholeNumber(ObjectNode body, String name, long min, long max, long absent) {
        JsonNode node = body.get(name);
        if (node == null) {
            return absent;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            return null;
        }
        long value = node.longValue();
        return value >= min && value <= max ? value : null;
    }

    /** Text for a message naming a field the client sent: printable and short. */
    static String shown(String text) {
        String cut = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }
}
