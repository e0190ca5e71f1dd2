package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.ops.PurgeMode;

/**
 * Reads the dead letters' switch and age ({@code dead-letters.enabled}, {@code dead-letters.ttl}) and
 * the {@code ops.purge} section into the ops package's {@link OpsSettings}.
 */
final class OpsSection {

    private OpsSection() {
    }

    static OpsSettings from(Config c) {
        return new OpsSettings(
                bool(c, "dead-letters.enabled"),
                positive(c, "dead-letters.ttl"),
                PurgeMode.of(oneOf(c, "ops.purge.mode", PurgeMode.OFF.label(), PurgeMode.DRY_RUN.label(),
                        PurgeMode.LIVE.label())),
                positive(c, "ops.purge.interval"),
                intIn(c, "ops.purge.orphan-scan-per-pass", 1, 10_000_000));
    }
}
