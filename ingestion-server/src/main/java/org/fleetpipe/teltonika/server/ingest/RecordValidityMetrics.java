package org.fleetpipe.teltonika.server.ingest;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/**
 * The meters of {@link RecordValidity}: records stored with {@code valid} = 0 by reason, and the
 * clock skew (rx - ts) of every record stored, as a histogram of its size in seconds with a
 * direction label (one series for device clocks behind, one for ahead). No IMEI label: a device is
 * found from the stream's entries, not from here.
 *
 * <p>The histogram is observed for every record on the event loops, so it is a {@link ClockSkewHistogram}
 * (per-thread cells) registered beside Micrometer's meters in the same Prometheus scrape, not a
 * Micrometer summary (about 100 ns a record on the encoding path, BENCHMARKS.md).
 */
public final class RecordValidityMetrics implements RecordValidity.Observer {

    /**
     * Seconds: a live record's delay (1-15 s), clocks a little off (1-10 min, the default
     * CLOCK_SKEW_FUTURE), a backlog sent after an outage (an hour to a month), a clock years off.
     */
    static final double[] SKEW_BUCKETS = {1, 5, 15, 60, 300, 600, 1_800, 3_600, 21_600, 86_400, 604_800,
            2_592_000, 31_536_000};

    /** Read by the counters at each scrape; LongAdders, as the event loops count at once. */
    private final LongAdder[] invalid = new LongAdder[RecordValidity.Reason.values().length];
    private final ClockSkewHistogram skew = new ClockSkewHistogram(SKEW_BUCKETS);

    private RecordValidityMetrics(MeterRegistry registry) {
        for (RecordValidity.Reason reason : RecordValidity.Reason.values()) {
            LongAdder count = new LongAdder();
            invalid[reason.ordinal()] = count;
            FunctionCounter.builder("teltonika.records.invalid", count, LongAdder::sum).tag("reason", reason.label())
                    .description("records stored with valid=0: no GPS fix, or a clock before 2010 or more than "
                            + "CLOCK_SKEW_FUTURE ahead of the server").register(registry);
        }
        // Another registry (tests' SimpleMeterRegistry) does not show it; skewCount still counts.
        if (registry instanceof PrometheusMeterRegistry prometheus) {
            prometheus.getPrometheusRegistry().register(skew);
        }
    }

    /** Registers the meters (every series at 0 from the start) and returns the observer that feeds them. */
    public static RecordValidityMetrics bind(MeterRegistry registry) {
        return new RecordValidityMetrics(registry);
    }

    @Override
    public void checked(RecordValidity.Reason reason, double skewMillis) {
        skew.observe(skewMillis);
        if (reason != null) {
            invalid[reason.ordinal()].increment();
        }
    }

    /** Records observed with that direction ("behind" or "ahead"): for tests. */
    long skewCount(String direction) {
        return skew.count(direction.equals("ahead"));
    }
}
