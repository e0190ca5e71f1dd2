package org.fleetpipe.teltonika.server.ingest;

import io.netty.util.concurrent.FastThreadLocal;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@code teltonika_record_clock_skew_seconds}: a Prometheus histogram of |rx - ts| per record, with
 * a {@code direction} label (behind, ahead). Observed for every record on the event loops, so each
 * thread counts into cells of its own with plain stores (no shared cache line, no atomic
 * instruction, no clock read) and a scrape adds the cells up: within the encoding benchmark's noise,
 * where a Micrometer summary with buckets cost about 100 ns a record and the Prometheus client's
 * histogram about 50 (BENCHMARKS.md). A thread's cell outlives it (its counts must not go back);
 * the threads that encode records are the event loops, a fixed few.
 */
final class ClockSkewHistogram implements Collector {

    static final String NAME = "teltonika_record_clock_skew_seconds";
    private static final String HELP = "|rx - ts| of every record stored, in seconds; direction=behind: the record "
            + "is older than its receipt (delay, a stored backlog, a slow clock), ahead: the device's clock is ahead "
            + "of the server's";
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
    private static final Labels BEHIND = Labels.of("direction", "behind");
    private static final Labels AHEAD = Labels.of("direction", "ahead");

    /** Upper bounds in ms, for the search; in seconds with +Inf last, for the scrape. */
    private final double[] boundsMillis;
    private final double[] upperBounds;
    /** Per direction: a count per bucket (+Inf last), then the sum in seconds as raw double bits. */
    private final int stride;
    private final Queue<long[]> cells = new ConcurrentLinkedQueue<>();
    private final FastThreadLocal<long[]> own = new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
            long[] cell = new long[2 * stride];
            cells.add(cell);
            return cell;
        }
    };

    /** {@code boundsSeconds}: the buckets' upper bounds, ascending, +Inf implied. */
    ClockSkewHistogram(double[] boundsSeconds) {
        boundsMillis = Arrays.stream(boundsSeconds).map(s -> s * 1000).toArray();
        upperBounds = Arrays.copyOf(boundsSeconds, boundsSeconds.length + 1);
        upperBounds[boundsSeconds.length] = Double.POSITIVE_INFINITY;
        stride = upperBounds.length + 1;
    }

    /** One record's skew, {@code rx - ts} in ms (negative: the device's clock is ahead). */
    void observe(double skewMillis) {
        long[] cell = own.get();
        boolean ahead = skewMillis < 0;
        double size = ahead ? -skewMillis : skewMillis;
        int at = ahead ? stride : 0;
        int bucket = 0;
        while (bucket < boundsMillis.length && size > boundsMillis[bucket]) {
            bucket++;
        }
        // Only this thread writes its cell; opaque stores let a scrape on another thread see them.
        CELL.setOpaque(cell, at + bucket, cell[at + bucket] + 1);
        int sum = at + stride - 1;
        CELL.setOpaque(cell, sum, Double.doubleToRawLongBits(Double.longBitsToDouble(cell[sum]) + size / 1000));
    }

    /** Records observed in a direction so far ({@code ahead} or behind). */
    long count(boolean ahead) {
        long count = 0;
        for (long[] cell : cells) {
            for (int b = 0; b < upperBounds.length; b++) {
                count += (long) CELL.getOpaque(cell, (ahead ? stride : 0) + b);
            }
        }
        return count;
    }

    @Override
    public MetricSnapshot collect() {
        return HistogramSnapshot.builder().name(NAME).help(HELP)
                .dataPoint(dataPoint(false, BEHIND)).dataPoint(dataPoint(true, AHEAD)).build();
    }

    private HistogramSnapshot.HistogramDataPointSnapshot dataPoint(boolean ahead, Labels labels) {
        int at = ahead ? stride : 0;
        long[] counts = new long[upperBounds.length];
        double sum = 0;
        for (long[] cell : cells) {
            for (int b = 0; b < counts.length; b++) {
                counts[b] += (long) CELL.getOpaque(cell, at + b);
            }
            sum += Double.longBitsToDouble((long) CELL.getOpaque(cell, at + stride - 1));
        }
        return HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                .classicHistogramBuckets(ClassicHistogramBuckets.of(upperBounds, counts)).sum(sum).build();
    }

    @Override
    public String getPrometheusName() {
        return NAME;
    }
}
