package org.fleetpipe.teltonika.server.http;

/** Whether this instance should receive traffic, and why not. */
public record Readiness(boolean ready, String reason) {

    public static Readiness ok() {
        return new Readiness(true, "ok");
    }

    public static Readiness notReady(String reason) {
        return new Readiness(false, reason);
    }

    java.util.Map<String, Object> toMap() {
        return java.util.Map.of("status", ready ? "ready" : "not-ready", "reason", reason);
    }
}
