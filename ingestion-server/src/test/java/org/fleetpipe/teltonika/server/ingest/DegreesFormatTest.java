package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hand-written degree formatter must say exactly what BigDecimal says, for every int. */
class DegreesFormatTest {

    private static String reference(int raw) {
        return BigDecimal.valueOf(raw, 7).stripTrailingZeros().toPlainString();
    }

    @Test
    void degrees_whenEdgeValues_thenSameAsBigDecimal() {
        for (int raw : new int[] {0, 1, -1, 10, -10, 10_000_000, -10_000_000, 250_000_000, -1_800_000_000,
                1_800_000_000, Integer.MAX_VALUE, Integer.MIN_VALUE, 123_456_789, -123_456_789, 5_000_000, 9_999_999}) {
            assertThat(TelemetryEntryMapper.degrees(raw)).as("raw %d", raw).isEqualTo(reference(raw));
        }
    }

    @Test
    void degrees_whenRandomValues_thenSameAsBigDecimal() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 200_000; i++) {
            int raw = i % 2 == 0 ? random.nextInt() : random.nextInt(-1_800_000_000, 1_800_000_001);
            assertThat(TelemetryEntryMapper.degrees(raw)).as("seed %d raw %d", seed, raw).isEqualTo(reference(raw));
        }
    }
}
