package org.fleetpipe.teltonika.simulator.report;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * ACK latencies in microseconds. Event loops record without locking (HdrHistogram's Recorder);
 * the reporting thread takes interval samples, which also add up into the run's total.
 */
public final class LatencyRecorder {

    private static final long MAX_MICROS = TimeUnit.HOURS.toMicros(1);
    private static final int DIGITS = 3;

    private final Recorder recorder = new Recorder(MAX_MICROS, DIGITS);
    private final Histogram total = new Histogram(MAX_MICROS, DIGITS);
    private Histogram interval;

    public void recordNanos(long nanos) {
        recorder.recordValue(Math.max(1, Math.min(MAX_MICROS, nanos / 1000)));
    }

    /** Latencies recorded since the previous sample. */
    public synchronized Histogram sampleInterval() {
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        return interval.copy();
    }

    /** Every latency recorded so far. */
    public synchronized Histogram total() {
        sampleInterval();
        return total.copy();
    }
}
