package org.fleetpipe.teltonika.server.config;

import com.typesafe.config.Config;
import java.util.List;

/**
 * Settings that no longer exist: one still set refuses the start with what replaced it, instead of
 * being ignored while the operator believes it holds.
 */
final class RetiredSettings {

    private record Retired(String env, String key, String instead) {
    }

    private static final List<Retired> RETIRED = List.of(
            new Retired("TELEMETRY_DEVICE_SHARE", "telemetry.backpressure.device-share",
                    "the stream's room is shared fairly among networks and devices from TELEMETRY_FAIR_SHARE_FROM"
                            + " (telemetry.backpressure.fair-share-from, a share of TELEMETRY_MAX_UNREAD, default"
                            + " 0.8) on: remove it, and set that one if the default does not suit"));

    private RetiredSettings() {
    }

    /** Refuses {@code environment} (variables) or {@code settings} (under the root) naming a retired setting. */
    static void refuseAny(Config environment, Config settings) {
        for (Retired r : RETIRED) {
            if (environment.hasPath(r.env()) || settings.hasPath(r.key())) {
                throw new SettingsException(r.env() + " (" + SettingValues.ROOT + "." + r.key()
                        + ") is no longer a setting: " + r.instead());
            }
        }
    }
}
