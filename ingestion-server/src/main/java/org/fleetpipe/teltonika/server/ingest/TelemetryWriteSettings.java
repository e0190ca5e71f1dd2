package org.fleetpipe.teltonika.server.ingest;

import java.time.Duration;

/**
 * What the telemetry writer needs from the settings.
 *
 * @param dedupWindow    how long a record's identity is remembered; zero turns deduplication off
 * @param dedupPerDevice identities kept per device (one generation; two are checked)
 * @param deviceInfoTtl  a device's info hash lives this long after its last login or record
 */
public record TelemetryWriteSettings(Duration dedupWindow, int dedupPerDevice,
                                     Duration deviceInfoTtl) {

    public TelemetryWriteSettings {
        if (deviceInfoTtl.toMillis() <= 0) {
            throw new IllegalArgumentException("deviceInfoTtl must be positive: " + deviceInfoTtl);
        }
    }
}
