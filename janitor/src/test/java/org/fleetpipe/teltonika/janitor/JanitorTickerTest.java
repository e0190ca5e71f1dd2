package org.fleetpipe.teltonika.janitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The janitor's pass line: a dry run says it is one and what it paused besides the eviction. */
class JanitorTickerTest {

    @Test
    void line_ofADryRun_namesWhatItWouldEvictAndWhatItPaused() {
        SweepResult dry = new SweepResult(10, 2, 1, 4, 0, Duration.ofMillis(3), true, Map.of("dead-1", 4L), 0, 0,
                "paused=eviction,command-hand-back,id-cleanup");

        assertThat(JanitorTicker.line(dry)).isEqualTo("janitor pass (dry run): scanned=10 instances=2 dead=1"
                + " would-evict=4 paused=eviction,command-hand-back,id-cleanup errors=0 elapsed=3ms"
                + " by-instance={dead-1=4}");
    }

    @Test
    void line_ofALivePass_countsWhatItDid() {
        SweepResult live = new SweepResult(10, 2, 1, 4, 1, Duration.ofMillis(3), false, Map.of(), 2, 1,
                "commands-handed-back=2 commands-failed-attempts=1");

        assertThat(JanitorTicker.line(live)).isEqualTo("janitor pass: scanned=10 instances=2 dead=1 evicted=4"
                + " commands-handed-back=2 commands-failed-attempts=1 errors=1 elapsed=3ms");
    }
}
