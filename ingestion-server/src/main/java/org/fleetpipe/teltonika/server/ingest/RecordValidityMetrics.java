package org.fleetpipe.teltonika.server.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The meters of {@link RecordValidity}: records stored with {@code valid} = 0 by reason, and the
 * clock skew (rx - ts) of every record stored, as two histograms of its size in seconds, one per
 * direction (Micrometer drops negative values from a histogram). No IMEI label: a device is found from the
 * stream's entries, not from here.
 */
public final class RecordValidityMetrics implements RecordValidity.Observer {

    /**
     * Seconds: a live record's delay (1-15 s), clocks a little off (1-10 min, the default
     * CLOCK_SKEW_FUTURE), a backlog sent after an outage (an hour to a month), a clock years off.
     */
    static final double[] SKEW_BUCKETS = {1, 5, 15, 60, 300, 600, 1_800, 3_600, 21_600, 86_400, 604_800,
            2_592_000, 31_536_000};

    private final Counter[] invalid = new Counter[RecordValidity.Reason.values().length];
    private final DistributionSummary behind;
    private final DistributionSummary ahead;

    private RecordValidityMetrics(MeterRegistry registry) {
        for (RecordValidity.Reason reason : RecordValidity.Reason.values()) {
            invalid[reason.ordinal()] = Counter.builder("teltonika.records.invalid").tag("reason", reason.label())
                    .description("records stored with valid=0: no GPS fix, or a clock before 2010 or more than "
                            + "CLOCK_SKEW_FUTURE ahead of the server").register(registry);
        }
        behind = skew(registry, "behind");
        ahead = skew(registry, "ahead");
    }

    /** Registers the meters (every series at 0 from the start) and returns the observer that feeds them. */
    public static RecordValidityMetrics bind(MeterRegistry registry) {
        return new RecordValidityMetrics(registry);
    }

    private static DistributionSummary skew(MeterRegistry registry, String direction) {
        return DistributionSummary.builder("teltonika.record.clock.skew").baseUnit("seconds")
                .tag("direction", direction)
                .description("|rx - ts| of every record stored, in seconds; direction=behind: the record is older "
                        + "than its receipt (delay, a stored backlog, a slow clock), ahead: the device's clock is "
                        + "ahead of the server's")
                .serviceLevelObjectives(SKEW_BUCKETS).register(registry);
    }

    @Override
    public void checked(RecordValidity.Reason reason, double skewMillis) {
        if (skewMillis >= 0) {
            behind.record(skewMillis / 1000);
        } else {
            ahead.record(-skewMillis / 1000);
        }
        if (reason != null) {
            invalid[reason.ordinal()].increment();
        }
    }
}
