package org.fleetpipe.teltonika.payload;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A stream entry's fields as the bytes Redis sent, in their order, each contract field found by
 * its {@link EntryField} without a lookup: one array of bytes and one of offsets per entry, no
 * String per field and no map (issue 41 item 4). Unknown fields are kept, for the dead letters.
 */
public final class EntryBody {

    private static final EntryField[] FIELDS = EntryField.values();
    private static final int FIELD_COUNT = FIELDS.length;
    private static final byte[][] KEYS = new byte[FIELD_COUNT][];
    /** A trimmed entry's body (Redis answered nil): no fields. */
    public static final EntryBody EMPTY = new EntryBody(new byte[0], emptyLayout(), 0);

    /**
     * Per name shape (length, first and last byte), the one field a name of that shape can be,
     * {@link #NO_FIELD}, or {@link #SEVERAL_FIELDS}: a name is matched with one comparison, in any
     * order (Codec 16's {@code gen} is absent from other entries; other writers may order them
     * otherwise).
     */
    private static final byte[] BY_SHAPE = new byte[1 << 14];
    private static final byte NO_FIELD = -1;
    private static final byte SEVERAL_FIELDS = -2;

    static {
        Arrays.fill(BY_SHAPE, NO_FIELD);
        for (EntryField field : EntryField.values()) {
            byte[] key = field.key().getBytes(StandardCharsets.US_ASCII);
            KEYS[field.ordinal()] = key;
            int shape = shape(key.length, key[0], key[key.length - 1]);
            BY_SHAPE[shape] = BY_SHAPE[shape] == NO_FIELD ? (byte) field.ordinal() : SEVERAL_FIELDS;
        }
    }

    private static int shape(int length, byte first, byte last) {
        return (Math.min(length, 15) << 10) | ((first & 31) << 5) | (last & 31);
    }

    private final byte[] data;
    /**
     * First, per {@link EntryField} ordinal, the index of that field (-1: absent; the last one when
     * an entry names it twice, as a map would); then where field i's name starts
     * ({@code FIELD_COUNT + 2i}), where its value starts (the name's end, {@code + 1}), and, after the
     * last field, the end of the data.
     */
    private final int[] layout;
    private final int count;

    private EntryBody(byte[] data, int[] layout, int count) {
        this.data = data;
        this.layout = layout;
        this.count = count;
    }

    /** The entry a map of fields makes (the reference consumer's, a dead letter's), in the map's order. */
    public static EntryBody of(Map<String, String> fields) {
        Builder builder = new Builder();
        fields.forEach((name, value) -> {
            builder.name(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)));
            builder.value(ByteBuffer.wrap(value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8)));
        });
        return builder.build();
    }

    /** Whether the entry has no fields: a trimmed one. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** The value of {@code field} decoded, or null when the entry does not have it. */
    public String text(EntryField field) {
        int index = layout[field.ordinal()];
        return index < 0 ? null : decode(valueStart(index), end(index));
    }

    /** The value of {@code field} as an integer of up to 18 digits, or {@code orElse} when absent or not one. */
    public long number(EntryField field, long orElse) {
        int index = layout[field.ordinal()];
        if (index < 0) {
            return orElse;
        }
        int at = valueStart(index);
        int end = end(index);
        boolean negative = at < end && data[at] == '-';
        if (negative) {
            at++;
        }
        if (at == end || end - at > 18) {
            return orElse;
        }
        long value = 0;
        for (; at < end; at++) {
            int digit = data[at] - '0';
            if (digit < 0 || digit > 9) {
                return orElse;
            }
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }

    /** Every field, unknown ones too, in the entry's order (the last value of a name given twice). */
    public Map<String, String> toMap() {
        if (count == 0) {
            return Collections.emptyMap();
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            fields.put(decode(nameStart(i), valueStart(i)), decode(valueStart(i), end(i)));
        }
        return fields;
    }

    /** The bytes the offsets point into; never changed. */
    byte[] data() {
        return data;
    }

    /** Where {@code field}'s value starts in {@link #data()}, or -1 when the entry does not have it. */
    int start(EntryField field) {
        int index = layout[field.ordinal()];
        return index < 0 ? -1 : valueStart(index);
    }

    /** Where {@code field}'s value ends (exclusive); only for a field the entry has. */
    int end(EntryField field) {
        return end(layout[field.ordinal()]);
    }

    /** The value's bytes decoded, for a message or a field written as text. */
    String decode(int from, int to) {
        return new String(data, from, to - from, StandardCharsets.UTF_8);
    }

    private int nameStart(int index) {
        return layout[FIELD_COUNT + 2 * index];
    }

    private int valueStart(int index) {
        return layout[FIELD_COUNT + 2 * index + 1];
    }

    private int end(int index) {
        return layout[FIELD_COUNT + 2 * index + 2];
    }

    private static int[] emptyLayout() {
        int[] layout = new int[FIELD_COUNT + 1];
        Arrays.fill(layout, 0, FIELD_COUNT, -1);
        return layout;
    }

    /**
     * Collects one entry's fields as a reply hands them over, name then value, and makes the
     * entry's body; reused entry after entry (one per reply reader, one thread).
     */
    public static final class Builder {

        private byte[] data = new byte[512];
        private int size;
        private int[] layout = emptyLayout();
        private int count;

        /** The next field's name. */
        public void name(ByteBuffer name) {
            int index = count;
            ensureFields(index + 1);
            layout[FIELD_COUNT + 2 * index] = size;
            int from = size;
            append(name);
            EntryField field = match(from, size);
            if (field != null) {
                layout[field.ordinal()] = index;
            }
        }

        /** The value of the field named last; null (never sent for a stream field) counts as empty. */
        public void value(ByteBuffer value) {
            layout[FIELD_COUNT + 2 * count + 1] = size;
            if (value != null) {
                append(value);
            }
            count++;
            layout[FIELD_COUNT + 2 * count] = size;
        }

        /** The entry's body from the fields given since the last one; ready for the next. */
        public EntryBody build() {
            if (count == 0) {
                reset();
                return EMPTY;
            }
            EntryBody body = new EntryBody(Arrays.copyOf(data, size),
                    Arrays.copyOf(layout, FIELD_COUNT + 2 * count + 1), count);
            reset();
            return body;
        }

        private void reset() {
            Arrays.fill(layout, 0, FIELD_COUNT, -1);
            size = 0;
            count = 0;
        }

        private void append(ByteBuffer bytes) {
            int length = bytes.remaining();
            if (size + length > data.length) {
                data = Arrays.copyOf(data, Math.max(2 * data.length, size + length));
            }
            bytes.get(bytes.position(), data, size, length);
            size += length;
        }

        private void ensureFields(int fields) {
            int needed = FIELD_COUNT + 2 * fields + 1;
            if (needed > layout.length) {
                layout = Arrays.copyOf(layout, Math.max(2 * layout.length, needed));
            }
        }

        private EntryField match(int from, int to) {
            int candidate = to - from < 1 ? NO_FIELD : BY_SHAPE[shape(to - from, data[from], data[to - 1])];
            if (candidate >= 0) {
                return equal(KEYS[candidate], from, to) ? FIELDS[candidate] : null;
            }
            if (candidate == NO_FIELD) {
                return null;
            }
            for (int i = 0; i < FIELD_COUNT; i++) {
                if (equal(KEYS[i], from, to)) {
                    return FIELDS[i];
                }
            }
            return null;
        }

        private boolean equal(byte[] key, int from, int to) {
            if (key.length != to - from) {
                return false;
            }
            for (int i = 0; i < key.length; i++) {
                if (key[i] != data[from + i]) {
                    return false;
                }
            }
            return true;
        }
    }
}
