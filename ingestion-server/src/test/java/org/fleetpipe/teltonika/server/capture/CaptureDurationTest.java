package org.fleetpipe.teltonika.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CaptureDurationTest {

    @Test
    void goTypesafeAndIsoTexts_areRead() {
        assertThat(CaptureDuration.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(CaptureDuration.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(CaptureDuration.parse("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(CaptureDuration.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
        assertThat(CaptureDuration.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(CaptureDuration.parse("10 minutes")).isEqualTo(Duration.ofMinutes(10));
        assertThat(CaptureDuration.parse(" 2 hours ")).isEqualTo(Duration.ofHours(2));
        assertThat(CaptureDuration.parse("1d")).isEqualTo(Duration.ofDays(1));
        // The grammar of the tools' options: what a simulator or consumer flag takes, a capture takes.
        assertThat(CaptureDuration.parse("PT10M")).isEqualTo(Duration.ofMinutes(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "10", "m", "-5m", "10 fortnights", "1h 30", "0", "0s", "0m0s", "PT0S", "1e3s",
            "10m!", "999999999999999h", "1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h"})
    void textsThatNameNoDuration_orAZeroOne_areRefusedSayingWhy(String text) {
        assertThatThrownBy(() -> CaptureDuration.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duration");
    }

    @Test
    void null_isRefused() {
        assertThatThrownBy(() -> CaptureDuration.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
