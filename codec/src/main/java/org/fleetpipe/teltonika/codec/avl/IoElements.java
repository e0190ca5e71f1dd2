package org.fleetpipe.teltonika.codec.avl;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * A record's IO elements kept as primitive arrays, an {@link IoElement} made only when one is asked
 * for by {@link #get}: a realistic record has about 16 elements, and one object each was most of
 * what decoding allocated. The primitive accessors read them without objects. Immutable.
 */
public final class IoElements extends AbstractList<IoElement> implements RandomAccess {

    private static final IoElements EMPTY = new IoElements(new int[0], new byte[0], new long[0], null);
    /** Width 0 in {@link #widths} marks a variable-length value. */
    private static final int VARIABLE = 0;

    private final int[] ids;
    /** Per element: 1, 2, 4, 8, or 0 for a variable-length value. */
    private final byte[] widths;
    private final long[] values;
    /** Per element, the variable-length values (null for fixed ones); null when there are none. */
    private final byte[][] variable;

    private IoElements(int[] ids, byte[] widths, long[] values, byte[][] variable) {
        this.ids = ids;
        this.widths = widths;
        this.values = values;
        this.variable = variable;
    }

    /** The same elements as {@code io}, which is returned as it is when it already is one. */
    public static IoElements of(List<IoElement> io) {
        if (io instanceof IoElements elements) {
            return elements;
        }
        if (io.isEmpty()) {
            return EMPTY;
        }
        Builder builder = new Builder(io.size());
        for (IoElement e : io) {
            if (e instanceof IoElement.Fixed f) {
                builder.fixed(f.id(), f.width(), f.value());
            } else if (e instanceof IoElement.Variable v) {
                builder.variable(v.id(), v.value());  // value() is a copy: ours to keep
            } else {
                throw new NullPointerException("null IO element");
            }
        }
        return builder.build();
    }

    @Override
    public int size() {
        return ids.length;
    }

    @Override
    public IoElement get(int index) {
        return isVariable(index) ? new IoElement.Variable(id(index), variable[index])
                : new IoElement.Fixed(id(index), width(index), values[index]);
    }

    public int id(int index) {
        return ids[index];
    }

    /** 1, 2, 4 or 8 bytes for a fixed-width element; 0 for a variable-length one. */
    public int width(int index) {
        return widths[index];
    }

    public boolean isVariable(int index) {
        return width(index) == VARIABLE;
    }

    /** A fixed-width element's value: the raw unsigned bits. */
    public long value(int index) {
        return values[index];
    }

    /** Bytes of a variable-length element's value. */
    public int variableLength(int index) {
        return variable[index].length;
    }

    /** One byte of a variable-length element's value, without a copy. */
    public byte variableByte(int index, int at) {
        return variable[index][at];
    }

    /** Fills the arrays of exactly {@code size} elements, in order. */
    public static final class Builder {
        private final int[] ids;
        private final byte[] widths;
        private final long[] values;
        private byte[][] variable;
        private int next;

        public Builder(int size) {
            ids = new int[size];
            widths = new byte[size];
            values = new long[size];
        }

        /** A 1, 2, 4 or 8-byte value. */
        public Builder fixed(int id, int width, long value) {
            if (width != 1 && width != 2 && width != 4 && width != 8) {
                throw new IllegalArgumentException("IO width must be 1, 2, 4 or 8: " + width);
            }
            if (width < 8 && (value >>> (width * 8)) != 0) {
                throw new IllegalArgumentException("IO value does not fit " + width + " bytes");
            }
            ids[next] = id;
            widths[next] = (byte) width;
            values[next++] = value;
            return this;
        }

        /** A variable-length value; {@code value} is kept, not copied: the caller gives it up. */
        public Builder variable(int id, byte[] value) {
            if (variable == null) {
                variable = new byte[ids.length][];
            }
            ids[next] = id;
            variable[next++] = value;
            return this;
        }

        public IoElements build() {
            if (next != ids.length) {
                throw new IllegalStateException(next + " IO elements given of " + ids.length);
            }
            return ids.length == 0 ? EMPTY : new IoElements(ids, widths, values, variable);
        }
    }
}
