package org.fleetpipe.teltonika.server.health;

/** A queue's state; the metric value is the ordinal (0, 1, 2). */
public enum HealthStatus {
    HEALTHY, DEGRADED, UNHEALTHY;

    public String label() {
        return name().toLowerCase();
    }

    public static HealthStatus worst(HealthStatus a, HealthStatus b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }
}
