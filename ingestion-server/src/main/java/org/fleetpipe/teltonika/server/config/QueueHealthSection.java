package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.longIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.notNegative;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import org.fleetpipe.teltonika.server.health.QueueHealthSettings;

/** Reads the {@code ops.queue-health} section into the health package's {@link QueueHealthSettings}. */
final class QueueHealthSection {

    private static final String AT = "ops.queue-health.";

    private QueueHealthSection() {
    }

    static QueueHealthSettings from(Config c) {
        // A degraded level above its unhealthy one is capped, not refused: a deployment that lowered
        // QUEUE_UNHEALTHY_STUCK below the newer QUEUE_DEGRADED_STUCK's default must still start.
        long unhealthyStuck = count(c, "unhealthy-stuck");
        long degradedStuck = Math.min(unhealthyStuck, count(c, "degraded-stuck"));
        long deadLettersUnhealthy = count(c, "dead-letters-unhealthy-size");
        long deadLettersDegraded = Math.min(deadLettersUnhealthy, count(c, "dead-letters-degraded-size"));
        return new QueueHealthSettings(
                bool(c, AT + "enabled"),
                positive(c, AT + "interval"),
                positive(c, AT + "stuck-after"),
                notNegative(c, AT + "in-flight-margin"),
                count(c, "commands-degraded-size"),
                count(c, "commands-unhealthy-size"),
                degradedStuck,
                unhealthyStuck,
                positive(c, AT + "dead-letter-window"),
                deadLettersDegraded,
                deadLettersUnhealthy);
    }

    private static long count(Config c, String key) {
        return longIn(c, AT + key, 1, Long.MAX_VALUE);
    }
}
