package org.fleetpipe.teltonika.server.capture;

import java.time.Duration;
import org.fleetpipe.teltonika.cli.DurationText;

/**
 * A capture's length as an operator writes it, in the tools' one grammar ({@link DurationText}):
 * {@code 10m}, {@code 1h30m}, {@code 90s}, {@code 1.5h}, {@code 10 minutes}, {@code PT10M}. A capture
 * of no length is refused; the longest one allowed is the caller's setting.
 */
public final class CaptureDuration {

    private CaptureDuration() {
    }

    /**
     * The duration {@code text} names.
     *
     * @throws IllegalArgumentException saying what is wrong, when it names none or a zero one
     */
    public static Duration parse(String text) {
        Duration duration = DurationText.parse(text);
        if (duration.isZero()) {
            throw new IllegalArgumentException("duration '" + text + "' is zero: a capture lasts 1ms or more");
        }
        return duration;
    }
}
