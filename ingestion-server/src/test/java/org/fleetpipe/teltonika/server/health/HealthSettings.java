package org.fleetpipe.teltonika.server.health;

import java.time.Duration;

/** Queue-health settings at reference.conf's defaults (SettingsLoaderTest pins those), with a few to vary. */
final class HealthSettings {

    private HealthSettings() {
    }

    static QueueHealthSettings defaults() {
        return with(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofMinutes(15));
    }

    static QueueHealthSettings with(Duration interval, Duration stuckAfter, Duration inFlightMargin, Duration window) {
        return new QueueHealthSettings(true, interval, stuckAfter, inFlightMargin, 1000, 10_000, 10, 50, window, 100,
                1000);
    }
}
