package org.fleetpipe.teltonika.payload;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * What one IO id means on one device model: its snake_case name, how its bytes read, its multiplier
 * and unit.
 *
 * @param bytes      1, 2, 4 or 8; 0 for a variable-length element (the stream has it as a hex string)
 * @param multiplier what the value is multiplied by; 1 for none
 * @param unit       the unit of the multiplied value, null when it has none
 */
public record IoElement(int id, String name, Type type, int bytes, BigDecimal multiplier, String unit) {

    /** How the element's bytes are read, from the table's Type column. */
    public enum Type {
        UNSIGNED, SIGNED, HEX, ASCII
    }

    /**
     * The named value of the stream's integer value {@code raw} (unsigned, as the stream has it):
     * a {@link BigDecimal} (multiplied, exact), a {@link String} (a hex element as hex digits), or
     * null when the value does not fit the element (a signed one wider than its bytes).
     */
    Object fromInteger(BigInteger raw) {
        if (type == Type.HEX) {
            String hex = raw.toString(16);
            int width = bytes > 0 ? Math.max(bytes * 2, hex.length()) : hex.length() + (hex.length() & 1);
            return "0".repeat(width - hex.length()) + hex;
        }
        BigInteger value = raw;
        if (type == Type.SIGNED && bytes > 0) {
            int bits = bytes * 8;
            if (raw.bitLength() > bits) {
                return null;
            }
            if (raw.testBit(bits - 1)) {
                value = raw.subtract(BigInteger.ONE.shiftLeft(bits));
            }
        }
        BigDecimal named = new BigDecimal(value).multiply(multiplier);
        return named.signum() == 0 ? BigDecimal.ZERO : named.stripTrailingZeros();
    }
}
