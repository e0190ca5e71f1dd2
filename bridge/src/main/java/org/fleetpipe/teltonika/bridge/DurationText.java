package org.fleetpipe.teltonika.bridge;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as operators write them: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}. */
final class DurationText {

    private static final Pattern FORMAT = Pattern.compile("([0-9]{1,9})(ms|s|m|h)");

    private DurationText() {}

    static Duration parse(String text) {
        Matcher matcher = FORMAT.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 30s, 2m, got '" + text + "'");
        }
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }
}
