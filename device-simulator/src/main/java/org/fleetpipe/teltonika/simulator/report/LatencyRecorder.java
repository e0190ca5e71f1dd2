package org.fleetpipe.teltonika.simulator.report;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * ACK latencies in microseconds. Event loops record without locking (HdrHistogram's Recorder);
 * the reporting thread takes interval samples, which also add up into the run's total and, once
 * the warm-up is over, into the steady phase's.
 */
public final class LatencyRecorder {

    private static final long MAX_MICROS = TimeUnit.HOURS.toMicros(1);
    private static final int DIGITS = 3;

    private final Recorder recorder = new Recorder(MAX_MICROS, DIGITS);
    private final Histogram total = new Histogram(MAX_MICROS, DIGITS);
    private final Histogram sinceSample = new Histogram(MAX_MICROS, DIGITS);
    private Histogram taken;
    private Histogram steady;

    public void recordNanos(long nanos) {
        recorder.recordValue(Math.max(1, Math.min(MAX_MICROS, nanos / 1000)));
    }

    /** Latencies recorded since the previous sample. */
    public synchronized Histogram sampleInterval() {
        take();
        Histogram interval = sinceSample.copy();
        sinceSample.reset();
        return interval;
    }

    /** From now on latencies also count toward {@link #steady()}; those recorded so far do not. */
    public synchronized void startSteady() {
        take();
        steady = new Histogram(MAX_MICROS, DIGITS);
    }

    /** Latencies recorded since {@link #startSteady()}; null if it was never called. */
    public synchronized Histogram steady() {
        take();
        return steady == null ? null : steady.copy();
    }

    /** Every latency recorded so far. */
    public synchronized Histogram total() {
        take();
        return total.copy();
    }

    private void take() {
        taken = recorder.getIntervalHistogram(taken);
        total.add(taken);
        sinceSample.add(taken);
        if (steady != null) {
            steady.add(taken);
        }
    }
}
