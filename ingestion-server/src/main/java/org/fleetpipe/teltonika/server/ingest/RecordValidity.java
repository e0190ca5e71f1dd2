package org.fleetpipe.teltonika.server.ingest;

import java.time.Duration;

/**
 * Whether a record's position and clock can be trusted: the stream entry's {@code valid} field
 * (TELEMETRY.md). Every record is checked as it is encoded, and told to the {@link Observer} (the
 * meters) with its clock skew; nothing is allocated per record.
 */
public final class RecordValidity {

    /** 2010-01-01T00:00:00Z: a record stamped before it comes from a clock that was never set. */
    public static final long EARLIEST_MILLIS = 1_262_304_000_000L;
    /** The default {@code CLOCK_SKEW_FUTURE}. */
    public static final Duration DEFAULT_FUTURE_SKEW = Duration.ofMinutes(10);
    /** Degrees x 10^7, as the device sends them. */
    private static final int MAX_LATITUDE = 900_000_000;
    private static final int MAX_LONGITUDE = 1_800_000_000;

    /** Why a record is not valid; a record has one reason, the first that applies in this order. */
    public enum Reason {
        /** Stamped before 2010-01-01: the device's clock was not set (reset to 1970, 1980 or 2000). */
        CLOCK_PAST("clock-past"),
        /** Stamped more than the allowed skew after the server received it. */
        CLOCK_FUTURE("clock-future"),
        /** No GPS fix: no satellites and both coordinates 0, or a coordinate out of range. */
        NO_FIX("no-fix");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        /** The metric's {@code reason} label. */
        public String label() {
            return label;
        }
    }

    /** Told of every record checked: why it is invalid (null when valid) and its clock skew. */
    @FunctionalInterface
    public interface Observer {
        /** {@code skewMillis} is rx - ts: negative when the device's clock is ahead of the server's. */
        void checked(Reason invalid, double skewMillis);

        Observer NONE = (invalid, skewMillis) -> { };
    }

    private final long futureSkewMillis;
    private final Observer observer;

    /** A record more than {@code futureSkew} ahead of its receipt is invalid. */
    public RecordValidity(Duration futureSkew, Observer observer) {
        if (futureSkew.isNegative()) {
            throw new IllegalArgumentException("futureSkew must not be negative: " + futureSkew);
        }
        this.futureSkewMillis = futureSkew.toMillis();
        this.observer = observer;
    }

    /** The default rule, unobserved (tests, tools). */
    public static RecordValidity unobserved() {
        return new RecordValidity(DEFAULT_FUTURE_SKEW, Observer.NONE);
    }

    /** The record's reason to be invalid, null when it is valid; told to the observer. */
    public Reason check(long ts, long rx, int satellites, int latitude, int longitude) {
        Reason reason = reason(ts, rx, futureSkewMillis, satellites, latitude, longitude);
        // As doubles: a device's timestamp is any 64-bit value, and rx - ts must not wrap around.
        observer.checked(reason, (double) rx - (double) ts);
        return reason;
    }

    /** The rule itself (TELEMETRY.md, "valid"). */
    static Reason reason(long ts, long rx, long futureSkewMillis, int satellites, int latitude, int longitude) {
        // Past first: it bounds ts from below, so ts - rx cannot overflow below.
        if (ts < EARLIEST_MILLIS) {
            return Reason.CLOCK_PAST;
        }
        if (ts - rx > futureSkewMillis) {
            return Reason.CLOCK_FUTURE;
        }
        if (satellites == 0 && latitude == 0 && longitude == 0
                || latitude > MAX_LATITUDE || latitude < -MAX_LATITUDE
                || longitude > MAX_LONGITUDE || longitude < -MAX_LONGITUDE) {
            return Reason.NO_FIX;
        }
        return null;
    }
}
