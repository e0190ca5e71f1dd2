package org.fleetpipe.teltonika.simulator.device;

/** IMEIs with a correct check digit: a 14-digit base plus the device index, then the Luhn digit. */
public final class ImeiSequence {

    public static final long DEFAULT_BASE = 35209308000000L;
    private static final long BODY_LIMIT = 100_000_000_000_000L;

    private final long base;

    public ImeiSequence(long base) {
        if (base < 0 || base >= BODY_LIMIT) {
            throw new IllegalArgumentException("IMEI base must have at most 14 digits: " + base);
        }
        this.base = base;
    }

    /** The IMEI of device {@code index} (0-based). */
    public String imei(int index) {
        long body = base + index;
        if (index < 0 || body >= BODY_LIMIT) {
            throw new IllegalArgumentException("IMEI base " + base + " + " + index + " runs past 14 digits");
        }
        String digits = String.format("%014d", body);
        return digits + checkDigit(digits);
    }

    /** Whether {@code count} devices fit after the base without running past 14 digits. */
    public boolean fits(int count) {
        return base + count - 1 < BODY_LIMIT;
    }

    /** Luhn over the 14 digits: the rightmost body digit sits in a doubled position once the check digit follows. */
    static int checkDigit(String body) {
        int sum = 0;
        for (int i = 0; i < body.length(); i++) {
            int d = body.charAt(body.length() - 1 - i) - '0';
            if ((i & 1) == 0) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return (10 - sum % 10) % 10;
    }
}
