package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The skew histogram: Prometheus's le semantics at the bounds, both directions, cells of several threads added up. */
class ClockSkewHistogramTest {

    private final ClockSkewHistogram histogram = new ClockSkewHistogram(new double[] {1, 5, 60});

    /** Cumulative counts per upper bound, as the scrape shows them, for a direction. */
    private List<Long> cumulative(String direction) {
        HistogramSnapshot snapshot = (HistogramSnapshot) histogram.collect();
        HistogramSnapshot.HistogramDataPointSnapshot point = snapshot.getDataPoints().stream()
                .filter(p -> p.getLabels().get("direction").equals(direction)).findFirst().orElseThrow();
        List<Long> out = new ArrayList<>();
        long running = 0;
        for (ClassicHistogramBucket bucket : point.getClassicBuckets()) {
            running += bucket.getCount();
            out.add(running);
        }
        return out;
    }

    private double sum(String direction) {
        return ((HistogramSnapshot) histogram.collect()).getDataPoints().stream()
                .filter(p -> p.getLabels().get("direction").equals(direction)).findFirst().orElseThrow().getSum();
    }

    @Test
    void observe_whenOnABound_thenInThatBucket_andJustAbove_thenTheNext() {
        histogram.observe(0);
        histogram.observe(1_000);
        histogram.observe(1_001);
        histogram.observe(60_000);
        histogram.observe(60_001);

        assertThat(cumulative("behind")).containsExactly(2L, 3L, 4L, 5L);
        assertThat(cumulative("ahead")).containsExactly(0L, 0L, 0L, 0L);
        assertThat(sum("behind")).isEqualTo(122.002, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void observe_whenNegative_thenAheadBySize() {
        histogram.observe(-4_000);
        histogram.observe(-1e15);

        assertThat(cumulative("ahead")).containsExactly(0L, 1L, 1L, 2L);
        assertThat(histogram.count(true)).isEqualTo(2);
        assertThat(histogram.count(false)).isZero();
    }

    @Test
    void observe_whenSeveralThreads_thenTheScrapeAddsTheirCellsUp() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 10_000; i++) {
                        histogram.observe(2_000);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(cumulative("behind")).containsExactly(0L, 30_000L, 30_000L, 30_000L);
        assertThat(sum("behind")).isEqualTo(60_000.0);
    }
}
