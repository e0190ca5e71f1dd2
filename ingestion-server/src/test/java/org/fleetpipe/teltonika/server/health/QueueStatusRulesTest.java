package org.fleetpipe.teltonika.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every threshold of the command and dead-letter queues, on both sides, with the design's defaults. */
class QueueStatusRulesTest {

    private final QueueStatusRules rules = new QueueStatusRules(HealthSettings.defaults());

    @ParameterizedTest(name = "stuck={0} due={1} -> {2}")
    @CsvSource({
            "0, 0, HEALTHY, '0 stuck, 0 due'",
            "9, 9, HEALTHY, '9 stuck, 9 due'",
            "10, 10, DEGRADED, 10 stuck >= 10",
            "49, 49, DEGRADED, 49 stuck >= 10",
            "50, 50, UNHEALTHY, 50 stuck >= 50",
            "5000, 5000, UNHEALTHY, 5000 stuck >= 50",
            "0, 999, HEALTHY, '0 stuck, 999 due'",
            "0, 1000, DEGRADED, 1000 due >= 1000",
            "9, 9999, DEGRADED, 9999 due >= 1000",
            "0, 10000, UNHEALTHY, 10000 due >= 10000",
            // The stuck count is the louder reason when both hold.
            "10, 1000, DEGRADED, 10 stuck >= 10",
            "50, 10000, UNHEALTHY, 50 stuck >= 50"})
    void commands_whenStuckOrDueCrossALevel_thenThatStatus_withWhy(long stuck, long due, HealthStatus expected,
                                                                   String why) {
        QueueStatusRules.Verdict verdict = rules.commands(stuck, due);

        assertThat(verdict.status()).isEqualTo(expected);
        assertThat(verdict.reason()).isEqualTo(why);
    }

    @ParameterizedTest(name = "added={0} -> {1}")
    @CsvSource({
            "0, HEALTHY, 0 new in 15 min",
            "99, HEALTHY, 99 new in 15 min",
            "100, DEGRADED, 100 new in 15 min >= 100",
            "999, DEGRADED, 999 new in 15 min >= 100",
            "1000, UNHEALTHY, 1000 new in 15 min >= 1000",
            "10000, UNHEALTHY, 10000 new in 15 min >= 1000"})
    void deadLetters_whenNewEntriesInTheWindowCrossALevel_thenThatStatus_withWhy(long added, HealthStatus expected,
                                                                               String why) {
        QueueStatusRules.Verdict verdict = rules.deadLetters(added);

        assertThat(verdict.status()).isEqualTo(expected);
        assertThat(verdict.reason()).isEqualTo(why);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"HEALTHY, healthy, 0", "DEGRADED, degraded, 1", "UNHEALTHY, unhealthy, 2"})
    void statusValues_whenLabelledAndExported_thenTheirNameAndOrdinal(HealthStatus status, String label, int value) {
        assertThat(status.label()).isEqualTo(label);
        assertThat(status.ordinal()).isEqualTo(value);
        assertThat(HealthStatus.worst(status, HealthStatus.HEALTHY)).isEqualTo(status);
        assertThat(HealthStatus.worst(HealthStatus.UNHEALTHY, status)).isEqualTo(HealthStatus.UNHEALTHY);
    }
}
