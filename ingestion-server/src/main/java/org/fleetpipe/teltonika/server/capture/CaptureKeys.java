package org.fleetpipe.teltonika.server.capture;

import org.fleetpipe.teltonika.registry.RedisKeys;

/** The keys of the frame captures (OPERATIONS.md, "Redis keys written"), with the namespace in front. */
public record CaptureKeys(String namespace) {

    public CaptureKeys(RedisKeys keys) {
        this(keys.namespace());
    }

    /** Hash of one device's active capture (end time, bytes written); it expires at the end. */
    public String captureActive(String imei) {
        return namespace + "capture:active:" + imei;
    }

    /** Stream of one device's captured frames, both ways; it expires a retention after the capture ends. */
    public String capture(String imei) {
        return namespace + "capture:" + imei;
    }

    /** Sorted set of the IMEIs with an active capture (score = its end), bounded by MAX_CAPTURES. */
    public String capturesActive() {
        return namespace + "captures:active";
    }
}
