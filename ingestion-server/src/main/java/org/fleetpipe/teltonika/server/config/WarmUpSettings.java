package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The device path's warm-up before the listeners open: synthetic packets through the real pipeline
 * classes, so the first real devices meet compiled code.
 *
 * @param packets how many packets at most; 0 = no warm-up
 * @param maxTime how long it may take at most, whatever is left of {@code packets}
 */
public record WarmUpSettings(int packets, Duration maxTime) {

    /** No warm-up: tests that start many servers. */
    public static final WarmUpSettings OFF = new WarmUpSettings(0, Duration.ofSeconds(1));

    static WarmUpSettings from(Config c) {
        return new WarmUpSettings(intIn(c, "warm-up.packets", 0, 10_000_000), positive(c, "warm-up.max-time"));
    }
}
