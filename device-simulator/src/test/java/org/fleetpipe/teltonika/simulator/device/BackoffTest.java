package org.fleetpipe.teltonika.simulator.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void nextDelay_doublesUpToTheMaximum_withJitterInTheUpperHalf() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), new Random(1));
        long[] ceilings = {1, 2, 4, 8, 16, 30, 30, 30};
        for (long ceiling : ceilings) {
            long delay = backoff.nextDelayNanos();
            assertThat(delay).isBetween(ceiling * SECOND / 2, ceiling * SECOND);
        }
    }

    @Test
    void nextDelay_afterReset_startsFromTheMinimumAgain() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), new Random(2));
        for (int i = 0; i < 10; i++) {
            backoff.nextDelayNanos();
        }
        backoff.reset();
        assertThat(backoff.nextDelayNanos()).isBetween(50_000_000L, 100_000_000L);
    }

    @Test
    void nextDelay_isJittered_soAFleetDoesNotReconnectInOneWave() {
        Random random = new Random(3);
        long first = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), random).nextDelayNanos();
        boolean differs = false;
        for (int i = 0; i < 10 && !differs; i++) {
            differs = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), random).nextDelayNanos() != first;
        }
        assertThat(differs).isTrue();
    }

    @Test
    void nextDelay_afterManyAttempts_neverOverflows() {
        Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofHours(1), new Random(4));
        for (int i = 0; i < 200; i++) {
            assertThat(backoff.nextDelayNanos()).isPositive().isLessThanOrEqualTo(3600 * SECOND);
        }
    }

    @Test
    void constructor_whenMaxBelowMin_thenRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), new Random()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
