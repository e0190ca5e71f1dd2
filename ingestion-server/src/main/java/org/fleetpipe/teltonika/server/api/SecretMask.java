package org.fleetpipe.teltonika.server.api;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a read-only caller sees of a command and its reply: parameter values masked, parameter ids
 * kept. A {@code setparam} carries APN users and passwords, server addresses and keys, a
 * {@code getparam} reply the same values read back, and a {@code flush} the APN and its login.
 */
final class SecretMask {

    static final String MASK = "***";

    /** {@code <id>:<value>} pairs, as setparam takes them and a setparam reply repeats them. */
    private static final Pattern ID_VALUE = Pattern.compile("(\\d+):[^;]*");
    /** {@code Value:<value>}, as a getparam reply gives each value. */
    private static final Pattern VALUE = Pattern.compile("(?i)(value:)[^;]*");

    private SecretMask() {
    }

    /** The command text with every parameter value masked; other commands as they are. */
    static String command(String text) {
        if (text == null) {
            return null;
        }
        int end = verbEnd(text);
        return switch (verb(text, end)) {
            case "setparam" -> text.substring(0, end) + ID_VALUE.matcher(text.substring(end)).replaceAll("$1:" + MASK);
            case "flush" -> text.substring(0, end) + " " + MASK;
            default -> text;
        };
    }

    /** The reply to {@code commandText} with every parameter value masked, when the command reads or sets them. */
    static String reply(String commandText, String reply) {
        if (reply == null || commandText == null) {
            return reply;
        }
        return switch (verb(commandText, verbEnd(commandText))) {
            case "setparam", "getparam" -> ID_VALUE.matcher(VALUE.matcher(reply).replaceAll("$1" + MASK))
                    .replaceAll("$1:" + MASK);
            case "flush" -> MASK;
            default -> reply;
        };
    }

    /** Where the first word ends (leading blanks skipped). */
    private static int verbEnd(String text) {
        int i = 0;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static String verb(String text, int end) {
        return text.substring(0, end).strip().toLowerCase(Locale.ROOT);
    }
}
