package org.fleetpipe.teltonika.simulator.net;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TickGridTest {

    private static final long MS = 1_000_000L;

    @Test
    void onTickGrid_roundsUpToTheNextWholeMillisecond() {
        assertThat(SimulatedDevice.onTickGrid(7 * MS)).isEqualTo(7 * MS);
        assertThat(SimulatedDevice.onTickGrid(7 * MS + 1)).isEqualTo(8 * MS);
        assertThat(SimulatedDevice.onTickGrid(8 * MS - 1)).isEqualTo(8 * MS);
    }

    @Test
    void onTickGrid_whenNanoTimeIsNegative_thenStillRoundsUp() {
        // System.nanoTime may be negative; the grid is the same.
        assertThat(SimulatedDevice.onTickGrid(-1)).isZero();
        assertThat(SimulatedDevice.onTickGrid(-MS - 1)).isEqualTo(-MS);
    }
}
