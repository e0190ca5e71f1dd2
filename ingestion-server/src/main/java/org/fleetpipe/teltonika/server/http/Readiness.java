package org.fleetpipe.teltonika.server.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether this instance should receive traffic, and why not.
 *
 * @param telemetry the telemetry stream's health (healthy, degraded, unhealthy): degraded still
 *                  takes traffic, and says so
 */
public record Readiness(boolean ready, String reason, String telemetry) {

    public static Readiness ok() {
        return new Readiness(true, "ok", "healthy");
    }

    /** Ready, with a telemetry state worth saying (the stream is full: no pod of the Service would do better). */
    public static Readiness readyWhile(String telemetryState) {
        return new Readiness(true, telemetryState, "unhealthy");
    }

    public static Readiness notReady(String reason) {
        return new Readiness(false, reason, "healthy");
    }

    public Readiness withTelemetry(String status) {
        return new Readiness(ready, reason, status);
    }

    Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("status", ready ? "ready" : "not-ready");
        map.put("reason", reason);
        map.put("telemetry", telemetry);
        return map;
    }
}
