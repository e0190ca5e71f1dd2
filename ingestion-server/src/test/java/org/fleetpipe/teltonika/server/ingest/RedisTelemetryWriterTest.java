package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which records of a packet the writer leaves out as repeats of an earlier one in the same packet. */
class RedisTelemetryWriterTest {

    @Test
    void repeats_whenAllDistinct_thenNone() {
        assertThat(RedisTelemetryWriter.repeats(new long[] {3, -1, Long.MIN_VALUE, 7})).containsExactly(false, false, false, false);
    }

    @Test
    void repeats_whenAnIdentityComesAgain_thenEveryLaterOccurrenceButNotTheFirst() {
        assertThat(RedisTelemetryWriter.repeats(new long[] {5, 6, 5, 5, 6, 9})).containsExactly(false, false, true, true, true, false);
    }

    @Test
    void repeats_whenEmpty_thenEmpty() {
        assertThat(RedisTelemetryWriter.repeats(new long[0])).isEmpty();
    }
}
