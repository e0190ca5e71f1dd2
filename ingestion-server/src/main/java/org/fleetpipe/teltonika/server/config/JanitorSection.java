package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.fraction;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import org.fleetpipe.teltonika.janitor.JanitorSettings;

/** Reads the {@code janitor} section into the janitor module's {@link JanitorSettings}. */
final class JanitorSection {

    private JanitorSection() {
    }

    static JanitorSettings from(Config c) {
        return new JanitorSettings(
                positive(c, "janitor.interval"),
                fraction(c, "janitor.jitter"),
                bool(c, "janitor.dry-run"),
                intIn(c, "janitor.scan-count", 1, 100_000));
    }
}
