package org.fleetpipe.teltonika.codec.avl;

import java.util.Arrays;
import java.util.HexFormat;

/** One IO element of an AVL record: a fixed-width number or (Codec 8E) a variable-length value. */
public sealed interface IoElement permits IoElement.Fixed, IoElement.Variable {

    int id();

    /** Value in the telemetry contract's form: unsigned decimal or lowercase hex. */
    String valueText();

    /** A 1, 2, 4 or 8-byte value, kept as the raw unsigned bits in a long. */
    record Fixed(int id, int width, long value) implements IoElement {
        public Fixed {
            if (width != 1 && width != 2 && width != 4 && width != 8) {
                throw new IllegalArgumentException("IO width must be 1, 2, 4 or 8: " + width);
            }
            if (width < 8 && (value >>> (width * 8)) != 0) {
                throw new IllegalArgumentException("IO value does not fit " + width + " bytes");
            }
        }

        @Override
        public String valueText() {
            return Long.toUnsignedString(value);
        }
    }

    /** A Codec 8E NX value; the array is copied in and out so the record stays immutable. */
    record Variable(int id, byte[] value) implements IoElement {
        public Variable {
            value = value.clone();
        }

        @Override
        public byte[] value() {
            return value.clone();
        }

        public int length() {
            return value.length;
        }

        /** One byte of the value, without the copy {@link #value()} makes. */
        public byte byteAt(int index) {
            return value[index];
        }

        @Override
        public String valueText() {
            return HexFormat.of().formatHex(value);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Variable v && v.id == id && Arrays.equals(v.value, value);
        }

        @Override
        public int hashCode() {
            return 31 * id + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "Variable[id=" + id + ", value=" + valueText() + "]";
        }
    }
}
