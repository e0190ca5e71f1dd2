package org.fleetpipe.teltonika.bridge.sink;

import java.time.Duration;

/**
 * What a sink did with one record: confirmed it, failed in a way worth retrying, or refused it for
 * good (the record then goes to the bridge's dead-letter stream).
 */
public record Outcome(Kind kind, String reason, Duration retryAfter) {

    /** The three answers a sink can give. */
    public enum Kind { DELIVERED, RETRY, REJECTED }

    public static final Outcome DELIVERED = new Outcome(Kind.DELIVERED, "", Duration.ZERO);

    public static Outcome retry(String reason) {
        return new Outcome(Kind.RETRY, reason, Duration.ZERO);
    }

    /** A retry the sink asked to wait for (HTTP {@code Retry-After}). */
    public static Outcome retry(String reason, Duration after) {
        return new Outcome(Kind.RETRY, reason, after);
    }

    public static Outcome rejected(String reason) {
        return new Outcome(Kind.REJECTED, reason, Duration.ZERO);
    }
}
