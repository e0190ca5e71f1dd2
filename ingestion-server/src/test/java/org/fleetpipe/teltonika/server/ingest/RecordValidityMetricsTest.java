package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.fleetpipe.teltonika.server.ingest.RecordValidity.Reason;
import org.junit.jupiter.api.Test;

/** The validity meters as Prometheus scrapes them: names, labels, buckets, both directions of skew. */
class RecordValidityMetricsTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RecordValidityMetrics metrics = RecordValidityMetrics.bind(registry);

    @Test
    void bind_whenNothingChecked_thenEverySeriesExistsAtZero() {
        String scrape = registry.scrape();

        for (String reason : new String[] {"no-fix", "clock-future", "clock-past"}) {
            assertThat(scrape).containsPattern("(?m)^teltonika_records_invalid_total\\{reason=\"" + reason + "\"} 0\\.0$");
        }
        for (String direction : new String[] {"behind", "ahead"}) {
            assertThat(scrape).containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\""
                    + direction + "\",le=\"600\\.0\"} 0$");
            assertThat(scrape).containsPattern("(?m)^teltonika_record_clock_skew_seconds_count\\{direction=\""
                    + direction + "\"} 0$");
        }
        assertThat(scrape).doesNotContain("imei");
    }

    @Test
    void bind_whenNotPrometheus_thenTheCountersStillCount() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry simple =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        RecordValidityMetrics other = RecordValidityMetrics.bind(simple);

        other.checked(Reason.NO_FIX, -1_000);

        assertThat(simple.get("teltonika.records.invalid").tag("reason", "no-fix").functionCounter().count()).isEqualTo(1);
        assertThat(other.skewCount("ahead")).isEqualTo(1);
        assertThat(other.skewCount("behind")).isZero();
    }

    @Test
    void checked_countsTheReasonAndBucketsTheSkewByDirection() {
        metrics.checked(null, 3_000);               // 3 s late
        metrics.checked(Reason.NO_FIX, 0);          // on time
        metrics.checked(Reason.CLOCK_FUTURE, -700_000); // 11m40s ahead
        metrics.checked(null, -2_000);              // 2 s ahead
        metrics.checked(Reason.CLOCK_PAST, 1e15);   // decades late

        String scrape = registry.scrape();

        assertThat(scrape).containsPattern("(?m)^teltonika_records_invalid_total\\{reason=\"no-fix\"} 1\\.0$")
                .containsPattern("(?m)^teltonika_records_invalid_total\\{reason=\"clock-future\"} 1\\.0$")
                .containsPattern("(?m)^teltonika_records_invalid_total\\{reason=\"clock-past\"} 1\\.0$");
        assertThat(scrape).containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"1\\.0\"} 1$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"5\\.0\"} 2$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"3\\.1536E7\"} 2$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"\\+Inf\"} 3$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"ahead\",le=\"1\\.0\"} 0$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"ahead\",le=\"5\\.0\"} 1$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"ahead\",le=\"600\\.0\"} 1$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"ahead\",le=\"1800\\.0\"} 2$");
    }
}
