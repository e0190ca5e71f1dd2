package org.fleetpipe.teltonika.simulator.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people type them: {@code 500ms}, {@code 1s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
public final class DurationText {

    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)?");

    private DurationText() {
    }

    /** The duration, or null when the text is not one. */
    static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text.trim());
        if (!m.matches()) {
            return null;
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /** Short form for summaries: {@code 1s}, {@code 250ms}. */
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
