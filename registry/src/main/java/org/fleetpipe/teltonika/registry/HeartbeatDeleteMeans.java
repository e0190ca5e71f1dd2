package org.fleetpipe.teltonika.registry;

/**
 * What a heartbeat key deleted while Redis answers means to its instance: an expiry (come back
 * under a new id; the same absence follows a restore, a lagging replica or an eviction) or an
 * order to stop (the operator's {@code DEL}, as the operations design describes it).
 */
public enum HeartbeatDeleteMeans {
    EXPIRY("expiry"),
    SHUTDOWN("shutdown");

    private final String label;

    HeartbeatDeleteMeans(String label) {
        this.label = label;
    }

    /** The setting's value. */
    public String label() {
        return label;
    }

    /** The value named {@code label}. */
    public static HeartbeatDeleteMeans of(String label) {
        for (HeartbeatDeleteMeans means : values()) {
            if (means.label.equals(label)) {
                return means;
            }
        }
        throw new IllegalArgumentException("unknown heartbeat-delete-means: " + label);
    }
}
