package org.fleetpipe.teltonika.server.testing;

import org.fleetpipe.teltonika.codec.Imei;

/** IMEIs for fixtures; every "valid" one passes the Luhn check so it works with the check on. */
public final class TestImeis {

    /** The IMEI of the Teltonika wiki's login example. */
    public static final String WIKI = "356307042441013";
    public static final String OTHER = "490154203237518";
    /** 15 digits whose check digit is wrong. */
    public static final String BAD_LUHN = "123456789012345";

    private TestImeis() {
    }

    /** A Luhn-valid IMEI built from 14 digits: the n-th device of a test. */
    public static String numbered(long n) {
        String body = String.format("35%012d", n);
        for (int check = 0; check <= 9; check++) {
            String candidate = body + check;
            if (Imei.luhnValid(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("no check digit for " + body);
    }
}
