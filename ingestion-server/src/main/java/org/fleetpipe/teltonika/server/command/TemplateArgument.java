package org.fleetpipe.teltonika.server.command;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One argument of a {@link CommandTemplate}: what the listing shows of it and what it accepts.
 * Values come as plain Java values of JSON ({@link Long} or another integral number, {@link String},
 * {@link List}, {@link Map} with text keys, {@link Boolean}, {@link Double}); {@link #check} turns an
 * accepted one into its normal form: a {@code Long}, a {@code List<Long>}, or a
 * {@code Map<Long, String>} in the order given.
 *
 * @param type      {@link #INTEGER}, {@link #INTEGER_LIST} or {@link #ID_VALUE_MAP}
 * @param allowed   the only values an integer may take, or null for any in {@code min..max}
 * @param min       the smallest integer (of a list's items, of a map's ids)
 * @param max       the largest integer (of a list's items, of a map's ids)
 * @param maxItems  the most items of a list or entries of a map; null for an integer
 * @param maxLength the longest text value of a map; null otherwise
 */
public record TemplateArgument(String name, String type, boolean required, List<Long> allowed, long min, long max,
                               Integer maxItems, Integer maxLength, String description) {

    /** A whole number. */
    public static final String INTEGER = "integer";
    /** A list of whole numbers, each once. */
    public static final String INTEGER_LIST = "integer-list";
    /** An object of parameter ids (decimal text keys) to values (text or whole numbers). */
    public static final String ID_VALUE_MAP = "id-value-map";

    /** An id as a key: decimal, no sign, no leading zero. */
    private static final Pattern ID_KEY = Pattern.compile("[1-9][0-9]{0,18}");

    public TemplateArgument {
        allowed = allowed == null ? null : List.copyOf(allowed);
    }

    static TemplateArgument integer(String name, boolean required, long min, long max, String description) {
        return new TemplateArgument(name, INTEGER, required, null, min, max, null, null, description);
    }

    static TemplateArgument oneOf(String name, boolean required, List<Long> allowed, String description) {
        return new TemplateArgument(name, INTEGER, required, allowed, allowed.get(0),
                allowed.get(allowed.size() - 1), null, null, description);
    }

    static TemplateArgument integerList(String name, long min, long max, int maxItems, String description) {
        return new TemplateArgument(name, INTEGER_LIST, true, null, min, max, maxItems, null, description);
    }

    static TemplateArgument idValueMap(String name, long min, long max, int maxItems, int maxLength,
                                       String description) {
        return new TemplateArgument(name, ID_VALUE_MAP, true, null, min, max, maxItems, maxLength, description);
    }

    /**
     * {@code value} in its normal form.
     *
     * @throws IllegalArgumentException saying what is wrong with it (the argument's name is added by the caller)
     */
    Object check(Object value) {
        return switch (type) {
            case INTEGER -> checkInteger(value);
            case INTEGER_LIST -> checkList(value);
            case ID_VALUE_MAP -> checkMap(value);
            default -> throw new IllegalStateException("no type " + type);
        };
    }

    private Long checkInteger(Object value) {
        Long number = whole(value);
        if (number == null || number < min || number > max || (allowed != null && !allowed.contains(number))) {
            throw new IllegalArgumentException(allowed != null ? "must be one of " + joined(allowed)
                    : "must be a whole number " + min + ".." + max);
        }
        return number;
    }

    private List<Long> checkList(Object value) {
        if (!(value instanceof List<?> items) || items.isEmpty() || items.size() > maxItems) {
            throw new IllegalArgumentException("must be a list of 1.." + maxItems + " whole numbers " + min + ".." + max);
        }
        Set<Long> ids = new LinkedHashSet<>();
        for (Object item : items) {
            Long id = whole(item);
            if (id == null || id < min || id > max) {
                throw new IllegalArgumentException("items must be whole numbers " + min + ".." + max);
            }
            if (!ids.add(id)) {
                throw new IllegalArgumentException("lists " + id + " twice");
            }
        }
        return new ArrayList<>(ids);
    }

    private Map<Long, String> checkMap(Object value) {
        if (!(value instanceof Map<?, ?> entries) || entries.isEmpty() || entries.size() > maxItems) {
            throw new IllegalArgumentException("must be an object of 1.." + maxItems + " parameter ids to values");
        }
        Map<Long, String> values = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            String key = String.valueOf(entry.getKey());
            Long id = ID_KEY.matcher(key).matches() ? whole(new BigInteger(key)) : null;
            if (id == null || id < min || id > max) {
                throw new IllegalArgumentException("keys must be parameter ids " + min + ".." + max
                        + " (decimal, no leading zero), not '" + CommandTemplates.shown(key) + "'");
            }
            values.put(id, mapValue(id, entry.getValue()));
        }
        return values;
    }

    /** A parameter's value as text: text the device's parser cannot misread, or a whole number. */
    private String mapValue(long id, Object value) {
        Long number = whole(value);
        if (number != null) {
            return Long.toString(number);
        }
        if (!(value instanceof String text) || text.length() > maxLength) {
            throw new IllegalArgumentException("the value of " + id + " must be text of at most " + maxLength
                    + " characters or a whole number");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            // ';' separates the pairs and ':' an id from its value: either inside a value would
            // set another parameter than the one named.
            if (c < 0x20 || c > 0x7E || c == ';' || c == ':') {
                throw new IllegalArgumentException("the value of " + id
                        + " must be printable ASCII without ';' or ':'");
            }
        }
        return text;
    }

    /** An integral number that fits a long, else null (text, a fraction, true, a list ...). */
    private static Long whole(Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof BigInteger big && big.bitLength() < 64) {
            return big.longValue();
        }
        return null;
    }

    private static String joined(List<Long> values) {
        return String.join(" or ", values.stream().map(String::valueOf).toList());
    }
}
