package org.fleetpipe.teltonika.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of every tool's options and of the capture API: numbers with a unit, Go
 * or Typesafe style ({@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h30m}, {@code 1.5h},
 * {@code 2d}, {@code 10 minutes}), ISO-8601 ({@code PT10S}), or a bare {@code 0}. The result is a
 * whole number of milliseconds, never negative; whether zero is allowed is the caller's rule.
 */
public final class DurationText {

    /** The grammar in one line, for help texts and error answers. */
    public static final String HELP = "Durations: numbers with a unit ms, s, m, h, d (500ms, 10s, 1h30m, 1.5h) or"
            + " ISO-8601 (PT10S); 0 is none.";

    /** Longer texts are refused before they are parsed (the capture API reads them from requests). */
    public static final int MAX_TEXT = 40;

    private static final String UNITS = "(ms, s, m, h, d)";
    private static final Pattern TERM = Pattern.compile("\\s*(\\d{1,9}(?:\\.\\d{1,9})?)\\s*([a-z]+)\\s*");
    private static final Map<String, Long> UNIT_MILLIS = Map.ofEntries(
            Map.entry("ms", 1L), Map.entry("millisecond", 1L), Map.entry("milliseconds", 1L),
            Map.entry("s", 1_000L), Map.entry("second", 1_000L), Map.entry("seconds", 1_000L),
            Map.entry("m", 60_000L), Map.entry("minute", 60_000L), Map.entry("minutes", 60_000L),
            Map.entry("h", 3_600_000L), Map.entry("hour", 3_600_000L), Map.entry("hours", 3_600_000L),
            Map.entry("d", 86_400_000L), Map.entry("day", 86_400_000L), Map.entry("days", 86_400_000L));

    private DurationText() {
    }

    /**
     * The duration {@code text} names.
     *
     * @throws IllegalArgumentException saying what is wrong, when it names none
     */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("a duration is needed, such as 10s, 5m or 1h30m");
        }
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException("a duration is at most " + MAX_TEXT + " characters, such as 1h30m");
        }
        String trimmed = text.trim();
        if (trimmed.equals("0")) {
            return Duration.ZERO;
        }
        if (trimmed.charAt(0) == 'P' || trimmed.charAt(0) == 'p') {
            return iso(text, trimmed);
        }
        Matcher term = TERM.matcher(text);
        BigDecimal millis = BigDecimal.ZERO;
        int at = 0;
        while (at < text.length()) {
            if (!term.find(at) || term.start() != at) {
                throw new IllegalArgumentException("'" + text + "' is not a duration: expected a number with a unit "
                        + UNITS + " such as 500ms, 10s or 1h30m, or ISO-8601 such as PT10S");
            }
            Long unit = UNIT_MILLIS.get(term.group(2));
            if (unit == null) {
                throw new IllegalArgumentException("'" + text + "' is not a duration: unknown unit '" + term.group(2)
                        + "' " + UNITS);
            }
            millis = millis.add(new BigDecimal(term.group(1)).multiply(BigDecimal.valueOf(unit)));
            at = term.end();
        }
        // At most 9 digits a term and 40 characters: far from overflowing a long.
        return Duration.ofMillis(millis.longValue());
    }

    private static Duration iso(String text, String trimmed) {
        try {
            Duration d = Duration.parse(trimmed.toUpperCase(Locale.ROOT));
            if (d.isNegative()) {
                throw new IllegalArgumentException("'" + text + "' is not a duration: it is negative");
            }
            return Duration.ofMillis(d.toMillis());
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: not ISO-8601 either (PT10S, PT1H30M,"
                    + " P1D)");
        }
    }

    /** The shortest text of {@code d} in whole units that {@link #parse} reads back: {@code 1h}, {@code 90s}, {@code 250ms}. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
