package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.notNegative;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * How a stop drains.
 *
 * @param grace       how long packets in flight may take to be stored and acknowledged
 * @param drainWindow over how long the devices are disconnected, so they do not all reconnect at once
 */
public record ShutdownSettings(Duration grace, Duration drainWindow) {

    static ShutdownSettings from(Config c) {
        return new ShutdownSettings(positive(c, "shutdown.grace"), notNegative(c, "shutdown.drain-window"));
    }
}
