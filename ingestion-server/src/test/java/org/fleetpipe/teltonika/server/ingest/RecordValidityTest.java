package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.server.ingest.RecordValidity.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** TELEMETRY.md's validity rule, reason by reason, at its boundaries. */
class RecordValidityTest {

    private static final long RX = Instant.parse("2026-11-26T07:00:00Z").toEpochMilli();
    private static final long FUTURE = Duration.ofMinutes(10).toMillis();
    /** 54.6872383 N, 25.28 E, as the device sends them (degrees x 10^7). */
    private static final int LAT = 546_872_383;
    private static final int LON = 252_800_000;

    private static Reason reason(long ts, int satellites, int lat, int lon) {
        return RecordValidity.reason(ts, RX, FUTURE, satellites, lat, lon);
    }

    @Test
    void aFixAndAPlausibleClock_isValid() {
        assertThat(reason(RX - 5_000, 9, LAT, LON)).isNull();
    }

    @Test
    void noSatellitesAtZeroZero_isNoFix() {
        assertThat(reason(RX, 0, 0, 0)).isEqualTo(Reason.NO_FIX);
    }

    @ParameterizedTest(name = "sat={0} lat={1} lon={2}")
    @CsvSource({
            "1, 0, 0",          // satellites in use: 0/0 is where it is
            "0, 1, 0",          // the last known position, kept by the device without a fix
            "0, 0, -1",
            "0, 546872383, 252800000"})
    void satellitesOrANonZeroCoordinate_isNotNoFix(int satellites, int lat, int lon) {
        assertThat(reason(RX, satellites, lat, lon)).isNull();
    }

    @ParameterizedTest(name = "lat={0} lon={1} -> {2}")
    @CsvSource({
            "900000000, 0, true",
            "-900000000, 0, true",
            "900000001, 0, false",
            "-900000001, 0, false",
            "0, 1800000000, true",
            "0, -1800000000, true",
            "0, 1800000001, false",
            "0, -1800000001, false",
            "2147483647, 0, false",
            "-2147483648, 0, false",
            "0, -2147483648, false"})
    void coordinates_validUpTo90And180Degrees(int lat, int lon, boolean valid) {
        assertThat(reason(RX, 9, lat, lon)).isEqualTo(valid ? null : Reason.NO_FIX);
    }

    @Test
    void clockAhead_validUpToTheSkewInclusive_thenClockFuture() {
        assertThat(reason(RX + FUTURE, 9, LAT, LON)).isNull();
        assertThat(reason(RX + FUTURE + 1, 9, LAT, LON)).isEqualTo(Reason.CLOCK_FUTURE);
        assertThat(reason(Long.MAX_VALUE, 9, LAT, LON)).isEqualTo(Reason.CLOCK_FUTURE);
    }

    @Test
    void clockBefore2010_isClockPast() {
        long earliest = Instant.parse("2010-01-01T00:00:00Z").toEpochMilli();

        assertThat(RecordValidity.EARLIEST_MILLIS).isEqualTo(earliest);
        assertThat(reason(earliest, 9, LAT, LON)).isNull();
        assertThat(reason(earliest - 1, 9, LAT, LON)).isEqualTo(Reason.CLOCK_PAST);
        assertThat(reason(0, 9, LAT, LON)).as("a clock reset to 1970").isEqualTo(Reason.CLOCK_PAST);
        assertThat(reason(Long.MIN_VALUE, 9, LAT, LON)).as("no wrap-around").isEqualTo(Reason.CLOCK_PAST);
    }

    @Test
    void aBacklogOfAnyAge_after2010_isValid() {
        assertThat(reason(RX - Duration.ofDays(365).toMillis(), 9, LAT, LON)).isNull();
    }

    @Test
    void severalReasons_theClockComesFirst() {
        assertThat(reason(0, 0, 0, 0)).isEqualTo(Reason.CLOCK_PAST);
        assertThat(reason(RX + FUTURE + 1, 0, 0, 0)).isEqualTo(Reason.CLOCK_FUTURE);
    }

    @Test
    void zeroSkew_anyRecordAheadOfTheServer_isClockFuture() {
        assertThat(RecordValidity.reason(RX, RX, 0, 9, LAT, LON)).isNull();
        assertThat(RecordValidity.reason(RX + 1, RX, 0, 9, LAT, LON)).isEqualTo(Reason.CLOCK_FUTURE);
    }

    @Test
    void check_tellsTheObserverTheReasonAndTheSkew() {
        List<String> seen = new ArrayList<>();
        RecordValidity validity = new RecordValidity(Duration.ofMinutes(10),
                (invalid, skew) -> seen.add(invalid + " " + (long) skew));

        assertThat(validity.check(RX - 1_500, RX, 9, LAT, LON)).isNull();
        assertThat(validity.check(RX + FUTURE + 1, RX, 9, LAT, LON)).isEqualTo(Reason.CLOCK_FUTURE);
        assertThat(validity.check(RX, RX, 0, 0, 0)).isEqualTo(Reason.NO_FIX);

        assertThat(seen).containsExactly("null 1500", "CLOCK_FUTURE " + -(FUTURE + 1), "NO_FIX 0");
    }

    @Test
    void check_whenTheTimestampIsExtreme_thenTheSkewDoesNotWrapAround() {
        double[] skew = new double[1];
        RecordValidity validity = new RecordValidity(Duration.ofMinutes(10), (invalid, s) -> skew[0] = s);

        validity.check(Long.MIN_VALUE, RX, 9, LAT, LON);

        assertThat(skew[0]).isPositive();
    }

    @Test
    void aNegativeSkew_isRefused() {
        assertThatThrownBy(() -> new RecordValidity(Duration.ofSeconds(-1), RecordValidity.Observer.NONE))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
