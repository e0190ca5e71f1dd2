package org.fleetpipe.teltonika.server.ingest;

import java.time.Duration;

/**
 * What the telemetry writer needs from the settings.
 *
 * @param dedupWindow    how long a record's identity is remembered; zero turns deduplication off
 * @param dedupPerDevice identities kept per device (one generation; two are checked)
 * @param deviceInfoTtl  a device's info hash lives this long after its last login or record
 * @param blockLinger    a MULTI block that is not full waits this long from its first packet for
 *                       more; zero sends it at the end of the event loop's round
 */
public record TelemetryWriteSettings(Duration dedupWindow, int dedupPerDevice,
                                     Duration deviceInfoTtl, Duration blockLinger) {

    public TelemetryWriteSettings {
        if (deviceInfoTtl.toMillis() <= 0) {
            throw new IllegalArgumentException("deviceInfoTtl must be positive: " + deviceInfoTtl);
        }
        if (blockLinger.isNegative()) {
            throw new IllegalArgumentException("blockLinger must not be negative: " + blockLinger);
        }
    }

    /** Blocks sent at the end of each round, without lingering. */
    public TelemetryWriteSettings(Duration dedupWindow, int dedupPerDevice, Duration deviceInfoTtl) {
        this(dedupWindow, dedupPerDevice, deviceInfoTtl, Duration.ZERO);
    }
}
