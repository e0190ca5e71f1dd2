package org.fleetpipe.teltonika.bridge.sink;

import java.time.Duration;

/**
 * What a sink did with one record. A sink that is not accepting (down, overloaded, or refusing the
 * bridge itself: credentials, permissions, a wrong address) is retried without limit and loses
 * nothing; only a refusal of the record itself sends it to the bridge's dead-letter stream.
 */
public record Outcome(Kind kind, String reason, Duration retryAfter) {

    /** The answers a sink can give. */
    public enum Kind {
        /** The sink confirmed the record. */
        DELIVERED,
        /** The sink is away or overloaded (unreachable, timeouts, HTTP 408, 429, 5xx): try again. */
        RETRY,
        /**
         * The sink refuses the bridge, whatever it sends (HTTP 3xx, 401, 403, 404, 405, 407; Kafka
         * authentication or authorization; MQTT not authorized): try again, until someone fixes it.
         */
        REFUSING,
        /** The sink refused this record for good (Kafka record too large): a dead letter. */
        REJECTED,
        /**
         * The sink refused the request as a whole for something a record in it holds (HTTP 400, 413,
         * 422), not saying which: the batch is split until the refused record stands alone.
         */
        BATCH_REJECTED
    }

    public static final Outcome DELIVERED = new Outcome(Kind.DELIVERED, "", Duration.ZERO);

    public static Outcome retry(String reason) {
        return new Outcome(Kind.RETRY, reason, Duration.ZERO);
    }

    /** A retry the sink asked to wait for (HTTP {@code Retry-After}). */
    public static Outcome retry(String reason, Duration after) {
        return new Outcome(Kind.RETRY, reason, after);
    }

    public static Outcome refusing(String reason) {
        return new Outcome(Kind.REFUSING, reason, Duration.ZERO);
    }

    public static Outcome rejected(String reason) {
        return new Outcome(Kind.REJECTED, reason, Duration.ZERO);
    }

    public static Outcome batchRejected(String reason) {
        return new Outcome(Kind.BATCH_REJECTED, reason, Duration.ZERO);
    }

    /** Whether the record is to be sent again: the sink did not take it, and did not refuse it either. */
    public boolean isRetry() {
        return kind == Kind.RETRY || kind == Kind.REFUSING;
    }
}
