package org.fleetpipe.teltonika.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationTextTest {

    @Test
    void whatTheToolsAndTheirScriptsWrite_isRead() {
        // The values of the READMEs, bench/*.sh, deploy/ and the tests, in each tool's old grammar.
        assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationText.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationText.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationText.parse("0")).isZero();
        assertThat(DurationText.parse("0s")).isZero();
        assertThat(DurationText.parse(" 30s ")).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theCaptureApisTexts_areRead() {
        assertThat(DurationText.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(DurationText.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationText.parse("1h 30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationText.parse("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(DurationText.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationText.parse("10 minutes")).isEqualTo(Duration.ofMinutes(10));
        assertThat(DurationText.parse(" 2 hours ")).isEqualTo(Duration.ofHours(2));
        assertThat(DurationText.parse("7d")).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void iso8601_isRead_inWholeMilliseconds() {
        assertThat(DurationText.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationText.parse("pt1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationText.parse("P1D")).isEqualTo(Duration.ofDays(1));
        assertThat(DurationText.parse("PT0.0015S")).isEqualTo(Duration.ofMillis(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "10", "m", "-5m", "10 fortnights", "1 sec", "2x", "soon", "1h 30", "1e3s", "10m!",
            "10S", "PT-1S", "-PT1S", "P", "PTS", "999999999999999h", "1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h"})
    void textsThatNameNoDuration_areRefusedSayingWhy(String text) {
        assertThatThrownBy(() -> DurationText.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duration");
    }

    @Test
    void aRefusal_namesTheUnitsOrTheUnknownOne() {
        assertThatThrownBy(() -> DurationText.parse("2x")).hasMessage("'2x' is not a duration: unknown unit 'x'"
                + " (ms, s, m, h, d)");
        assertThatThrownBy(() -> DurationText.parse("10")).hasMessageContaining("a number with a unit (ms, s, m, h, d)");
        assertThatThrownBy(() -> DurationText.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void format_isTheShortestWholeUnit_andReadsBack() {
        for (Duration d : new Duration[] {Duration.ofHours(2), Duration.ofMinutes(90), Duration.ofSeconds(45),
                Duration.ofMillis(250), Duration.ZERO}) {
            assertThat(DurationText.parse(DurationText.format(d))).isEqualTo(d);
        }
        assertThat(DurationText.format(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(DurationText.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(DurationText.format(Duration.ZERO)).isEqualTo("0s");
    }
}
