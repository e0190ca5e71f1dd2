package org.fleetpipe.teltonika.simulator.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyRecorderTest {

    @Test
    void startSteady_keepsEarlierLatenciesOutOfTheSteadyPhaseButInTheIntervalAndTotal() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.recordNanos(400_000_000L);
        recorder.startSteady();
        recorder.recordNanos(2_000_000L);

        // The progress line after the warm-up's end still sees both.
        assertThat(recorder.sampleInterval().getTotalCount()).isEqualTo(2);
        assertThat(recorder.sampleInterval().getTotalCount()).isZero();
        assertThat(recorder.steady().getTotalCount()).isEqualTo(1);
        assertThat(recorder.steady().getMaxValue()).isBetween(1_990L, 2_010L);
        assertThat(recorder.total().getTotalCount()).isEqualTo(2);
    }

    @Test
    void steady_beforeTheWarmupEnded_thenNull() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.recordNanos(1_000_000L);
        assertThat(recorder.steady()).isNull();
        assertThat(recorder.total().getTotalCount()).isEqualTo(1);
    }
}
