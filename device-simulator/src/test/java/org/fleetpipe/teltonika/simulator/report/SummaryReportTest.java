package org.fleetpipe.teltonika.simulator.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SummaryReportTest {

    private static StatsSnapshot snapshot(long generated, long acknowledged, long dropped) {
        return new StatsSnapshot(3, 3, generated, 10, generated, 0, 10, acknowledged, dropped, 0, 0, 0, 0, 0, 0, 0,
                1_000_000_000L, 3_000_000_000L);
    }

    @Test
    void exitCode_whenEveryGeneratedRecordWasAcknowledged_then0() {
        assertThat(SummaryReport.exitCode(snapshot(50, 50, 0))).isEqualTo(SummaryReport.EXIT_OK);
    }

    @Test
    void exitCode_whenSomeAreUnacknowledgedOrDropped_then1() {
        assertThat(SummaryReport.exitCode(snapshot(50, 45, 0))).isEqualTo(SummaryReport.EXIT_UNACKNOWLEDGED);
        assertThat(SummaryReport.exitCode(snapshot(50, 45, 5))).isEqualTo(SummaryReport.EXIT_UNACKNOWLEDGED);
    }

    @Test
    void exitCode_whenNothingWasAcknowledgedAtAll_then1() {
        assertThat(SummaryReport.exitCode(snapshot(0, 0, 0))).isEqualTo(SummaryReport.EXIT_UNACKNOWLEDGED);
    }

    @Test
    void format_whenNothingWasAcknowledged_thenSaysSo() {
        String text = SummaryReport.format("t", Duration.ofSeconds(1), snapshot(0, 0, 0), 0,
                new Histogram(3_600_000_000L, 3), Duration.ZERO, null);
        assertThat(text).contains("ack latency  no ACKs", "result       FAILED: no record was acknowledged");
    }

    @Test
    void format_showsCountsRateAndPercentiles() {
        Histogram latency = new Histogram(3_600_000_000L, 3);
        for (int i = 1; i <= 1000; i++) {
            latency.recordValue(i * 10L);
        }
        String text = SummaryReport.format("tcp test", Duration.ofSeconds(2), snapshot(50, 50, 0), 3, latency,
                Duration.ZERO, null);

        assertThat(text).contains("summary      after 2.0 s (tcp test)",
                "records      generated 50, sent 50, acknowledged 50, unacknowledged 0, dropped 0",
                "p50 5.00 ms", "p99 9.90 ms", "p99.9 9.99 ms", "max 10.0", "(1000 ACKs)",
                "throughput   25.0 records/s acknowledged", "result       OK");
        assertThat(text).doesNotContain("steady");
    }

    @Test
    void format_withFirstAcks_thenSaysWhenTheLastDeviceHadItsFirst_beforeTheResult() {
        String text = SummaryReport.format("t", Duration.ofSeconds(2), snapshot(50, 50, 0), 3,
                new Histogram(3_600_000_000L, 3), Duration.ZERO, null, 3, Duration.ofMillis(1250));
        assertThat(text).contains("first acks   3 of 3 devices had an ACK; the last of them its first 1.25 s after"
                + " the start\nresult       OK".replace("\n", System.lineSeparator()));
        assertThat(SummaryReport.format("t", Duration.ofSeconds(2), snapshot(0, 0, 0), 0,
                new Histogram(3_600_000_000L, 3), Duration.ZERO, null, 0, null))
                .contains("first acks   0 of 3 devices had an ACK" + System.lineSeparator());
    }

    @Test
    void format_whenTheWarmupEnded_thenTheSteadyLineCountsOnlyWhatCameAfterIt() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.recordNanos(500_000_000L);              // a 500 ms ACK during the logins
        recorder.startSteady();
        for (int i = 1; i <= 100; i++) {
            recorder.recordNanos(i * 100_000L);          // 0.1 .. 10 ms afterwards
        }
        StatsSnapshot atStart = new StatsSnapshot(3, 3, 20, 2, 20, 0, 2, 20, 0, 0, 0, 0, 0, 0, 0, 0,
                1_000_000_000L, 1_500_000_000L);
        SteadyPhase steady = new SteadyPhase(Duration.ofSeconds(1), atStart, 2_000_000_000L, recorder.steady());

        String text = SummaryReport.format("t", Duration.ofSeconds(2), snapshot(50, 50, 0), 3, recorder.total(),
                Duration.ofSeconds(1), steady);

        // 30 records acknowledged between the warm-up's end (2.0 s) and the latest ACK (3.0 s).
        assertThat(text).contains("max 500.22 ms  (101 ACKs)",
                "steady       after the first 1s: 30.0 records/s acknowledged, ack latency p50 5.00 ms",
                "p99 9.90 ms", "max 10.0", "(100 ACKs)");
    }

    @Test
    void format_whenTheRunEndedWithinItsWarmup_thenSaysSo() {
        String text = SummaryReport.format("t", Duration.ofSeconds(2), snapshot(50, 50, 0), 3,
                new Histogram(3_600_000_000L, 3), Duration.ofSeconds(5), null);
        assertThat(text).contains("steady       none: sending ended within the 5s warm-up");
    }
}
