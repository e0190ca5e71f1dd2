package org.fleetpipe.teltonika.bridge.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The SQLSTATEs a failed insert can end with, and what each means for the batch's records. */
class PostgresFailuresTest {

    @ParameterizedTest
    @ValueSource(strings = {"08001", "08006", "08003", "57P01", "57P02", "57P03", "57014", "25006", "40001", "40P01",
        "53100", "53200", "53300", "55P03", "58030", "XX000"})
    void theDatabaseAway_readOnly_aLostConnection_aSerializationFailure_areRetried_neverDeadLettered(String state) {
        Outcome outcome = PostgresFailures.outcome(new SQLException("away", state));
        assertThat(outcome.kind()).isEqualTo(Outcome.Kind.RETRY);
        assertThat(outcome.reason()).startsWith("SQLState " + state);
    }

    @ParameterizedTest
    @ValueSource(strings = {"28P01", "28000", "42501", "42P01", "42703", "3D000", "3F000"})
    void theDatabaseRefusingTheBridge_isRetriedWithoutLimit_asRefusing(String state) {
        assertThat(PostgresFailures.outcome(new SQLException("no", state)).kind()).isEqualTo(Outcome.Kind.REFUSING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"22003", "22008", "22P02", "22021", "23514", "23502", "23505", "23503"})
    void aRowRefusedForItsContent_refusesTheBatch_whichTheLaneSplitsUntilTheRecordStandsAlone(String state) {
        assertThat(PostgresFailures.outcome(new SQLException("bad row", state)).kind())
                .isEqualTo(Outcome.Kind.BATCH_REJECTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"08006", "57P01", "25006"})
    void aLostConnectionOrAReadOnlyServer_dropsTheConnections(String state) {
        assertThat(PostgresFailures.connectionLost(new SQLException("x", state))).isTrue();
        assertThat(PostgresFailures.connectionLost(new SQLException("x", "23514"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "x"})
    void aDriverErrorWithoutAState_isRetried(String message) {
        assertThat(PostgresFailures.outcome(new SQLException(message)).kind()).isEqualTo(Outcome.Kind.RETRY);
    }
}
