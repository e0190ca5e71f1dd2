package org.fleetpipe.teltonika.server.capture;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A capture's length as an operator writes it, Go or Typesafe style: {@code 10m}, {@code 1h30m},
 * {@code 90s}, {@code 1.5h}, {@code 10 minutes}. A unit is required; the result is a whole number
 * of milliseconds.
 */
public final class CaptureDuration {

    /** Longer texts are refused before they are parsed. */
    static final int MAX_TEXT = 40;
    private static final Pattern TERM = Pattern.compile("\\s*(\\d{1,9}(?:\\.\\d{1,9})?)\\s*([a-z]+)\\s*");
    private static final Map<String, Long> UNIT_MILLIS = Map.ofEntries(
            Map.entry("ms", 1L), Map.entry("millisecond", 1L), Map.entry("milliseconds", 1L),
            Map.entry("s", 1_000L), Map.entry("second", 1_000L), Map.entry("seconds", 1_000L),
            Map.entry("m", 60_000L), Map.entry("minute", 60_000L), Map.entry("minutes", 60_000L),
            Map.entry("h", 3_600_000L), Map.entry("hour", 3_600_000L), Map.entry("hours", 3_600_000L),
            Map.entry("d", 86_400_000L), Map.entry("day", 86_400_000L), Map.entry("days", 86_400_000L));

    private CaptureDuration() {
    }

    /**
     * The duration {@code text} names.
     *
     * @throws IllegalArgumentException saying what is wrong, when it names none or a zero one
     */
    public static Duration parse(String text) {
        if (text == null || text.isBlank() || text.length() > MAX_TEXT) {
            throw new IllegalArgumentException("duration must be a text such as \"10m\", \"1h30m\" or \"90s\"");
        }
        Matcher term = TERM.matcher(text);
        BigDecimal millis = BigDecimal.ZERO;
        int at = 0;
        while (at < text.length()) {
            if (!term.find(at) || term.start() != at) {
                throw new IllegalArgumentException("duration \"" + text + "\" is not a number with a unit"
                        + " (ms, s, m, h, d), e.g. \"10m\" or \"1h30m\"");
            }
            Long unit = UNIT_MILLIS.get(term.group(2));
            if (unit == null) {
                throw new IllegalArgumentException("duration \"" + text + "\": unknown unit \"" + term.group(2)
                        + "\" (ms, s, m, h, d)");
            }
            millis = millis.add(new BigDecimal(term.group(1)).multiply(BigDecimal.valueOf(unit)));
            at = term.end();
        }
        if (millis.signum() == 0) {
            throw new IllegalArgumentException("duration \"" + text + "\" is zero");
        }
        // At most 9 digits a term and 40 characters: far from overflowing a long.
        return Duration.ofMillis(millis.longValue());
    }
}
