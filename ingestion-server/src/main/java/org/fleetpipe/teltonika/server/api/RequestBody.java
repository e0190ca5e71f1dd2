package org.fleetpipe.teltonika.server.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.server.json.Json;

/**
 * A request's JSON body bound to a request record by the server's one strict mapper ({@link Json}):
 * one object, no key twice, nothing after it, no field the record does not have (a typo such as
 * {@code wait} for {@code wait_ms} would otherwise be ignored silently), and each field of its
 * exact JSON type ({@code "14"}, {@code 12.9}, {@code true} and {@code null} are not whole
 * numbers). What went wrong comes back as a {@link Result} naming the field, so each resource maps
 * it to the contract's error code.
 *
 * <p>The fields are bound in a fixed order: the unknown ones first (in the order sent), then the
 * record's in its declared order. So an unknown field is reported before a bad value, and of two
 * bad values the one declared first, whatever order the client wrote them in.
 */
public final class RequestBody {

    /** The outcome of binding a body. */
    public sealed interface Result<T> permits Bound, Malformed, UnknownField, BadValue {
    }

    /** The body, bound. */
    public record Bound<T>(T value) implements Result<T> {
    }

    /** Not exactly one JSON object (unparseable, a key twice, something after it, an array ...). */
    public record Malformed<T>() implements Result<T> {
    }

    /** A field the record does not have; {@code fields} are the ones it has, in order. */
    public record UnknownField<T>(String name, List<String> fields) implements Result<T> {
    }

    /**
     * The field {@code field} is not of its type: as a whole ({@code index} -1) or its list item
     * {@code index}; {@code value} is what was sent there.
     */
    public record BadValue<T>(String field, int index, JsonNode value) implements Result<T> {
    }

    private static final Map<Class<?>, List<String>> FIELDS = new ConcurrentHashMap<>();

    private RequestBody() {
    }

    /** Binds {@code content} (not released) to {@code type}, a record whose components are all optional. */
    public static <T> Result<T> read(ByteBuf content, Class<T> type) {
        JsonNode tree;
        try (ByteBufInputStream in = new ByteBufInputStream(content.duplicate())) {
            tree = Json.MAPPER.readTree(in);
        } catch (IOException e) {
            return new Malformed<>();
        }
        if (!(tree instanceof ObjectNode body)) {
            return new Malformed<>();
        }
        List<String> fields = fields(type);
        ObjectNode ordered = Json.MAPPER.createObjectNode();
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!fields.contains(name)) {
                return new UnknownField<>(name, fields);
            }
        }
        for (String field : fields) {
            JsonNode value = body.get(field);
            if (value == null) {
                continue;
            }
            if (value.isNull()) {
                // Jackson takes an explicit null for an absent component; the API refuses it.
                return new BadValue<>(field, -1, value);
            }
            ordered.set(field, value);
        }
        try {
            return new Bound<>(Json.MAPPER.treeToValue(ordered, type));
        } catch (UnrecognizedPropertyException e) {
            return new UnknownField<>(e.getPropertyName(), fields);
        } catch (JsonMappingException e) {
            List<JsonMappingException.Reference> path = e.getPath();
            if (path.isEmpty() || path.get(0).getFieldName() == null) {
                return new Malformed<>();
            }
            String field = path.get(0).getFieldName();
            int index = path.size() > 1 ? path.get(1).getIndex() : -1;
            JsonNode value = ordered.get(field);
            return new BadValue<>(field, index, index >= 0 && value != null ? value.get(index) : value);
        } catch (JacksonException e) {
            return new Malformed<>();
        }
    }

    /** The JSON names of {@code type}'s fields, in declared order. */
    static List<String> fields(Class<?> type) {
        return FIELDS.computeIfAbsent(type, t -> Json.MAPPER.getDeserializationConfig()
                .introspect(Json.MAPPER.constructType(t)).findProperties().stream()
                .map(BeanPropertyDefinition::getName).toList());
    }

    /** Text for a message naming what the client sent: printable and short. */
    static String shown(String text) {
        String cut = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }
}
