package org.fleetpipe.teltonika.codec;

import org.fleetpipe.teltonika.codec.CodecException.Reason;

/** A validated 15-digit IMEI. */
public record Imei(String value) {

    public static final int LENGTH = 15;

    public Imei {
        check(value, false);
    }

    /** Parses and validates; the check digit (Luhn) is verified when {@code verifyCheckDigit}. */
    public static Imei parse(CharSequence text, boolean verifyCheckDigit) {
        String s = text == null ? null : text.toString();
        check(s, verifyCheckDigit);
        return new Imei(s);
    }

    private static void check(String s, boolean verifyCheckDigit) {
        if (s == null || s.length() != LENGTH) {
            throw new CodecException(Reason.IMEI_LENGTH,
                    "IMEI must be 15 digits, got " + (s == null ? "null" : s.length() + " characters"));
        }
        for (int i = 0; i < LENGTH; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new CodecException(Reason.IMEI_NOT_DIGITS, "IMEI has a non-digit at position " + i);
            }
        }
        if (verifyCheckDigit && !luhnValid(s)) {
            throw new CodecException(Reason.IMEI_CHECK_DIGIT, "IMEI check digit (Luhn) is wrong");
        }
    }

    /** Luhn check over all 15 digits (the last one is the check digit). */
    public static boolean luhnValid(CharSequence digits) {
        int sum = 0;
        int n = digits.length();
        for (int i = 0; i < n; i++) {
            int d = digits.charAt(n - 1 - i) - '0';
            if ((i & 1) == 1) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return sum % 10 == 0;
    }

    /** The IMEI as a number, the form Codec 14 puts on the wire (16 hex digits, leading 0). */
    public long asLong() {
        return Long.parseLong(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
