package org.fleetpipe.teltonika.server.health;

import java.time.Duration;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.ops.PurgeMode;

/** Queue-health settings at reference.conf's defaults (SettingsLoaderTest pins those), with a few to vary. */
final class HealthSettings {

    private HealthSettings() {
    }

    static OpsSettings defaults() {
        return with(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofMinutes(15));
    }

    static OpsSettings with(Duration interval, Duration stuckAfter, Duration inFlightMargin, Duration window) {
        return new OpsSettings(interval, stuckAfter, 1000, 10_000, 100, 1000, 50, 10, inFlightMargin, window,
                Duration.ofDays(7), Duration.ofMinutes(5), 10_000, true, true, PurgeMode.DRY_RUN);
    }
}
