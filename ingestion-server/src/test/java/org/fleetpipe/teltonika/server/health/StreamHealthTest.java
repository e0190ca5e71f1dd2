package org.fleetpipe.teltonika.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.fleetpipe.teltonika.server.stream.GroupPosition;
import org.fleetpipe.teltonika.server.stream.RetentionMode;
import org.fleetpipe.teltonika.server.stream.StreamRetentionSettings;
import org.fleetpipe.teltonika.server.stream.StreamSnapshot;
import org.fleetpipe.teltonika.server.stream.TelemetryBackpressure;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.junit.jupiter.api.Test;

/** The telemetry stream's queue health from the last retention pass. */
class StreamHealthTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final StreamRetentionSettings SETTINGS = new StreamRetentionSettings(1000,
            RetentionMode.ACKNOWLEDGED, Duration.ZERO, Duration.ofSeconds(1), 1000, 0.85, Duration.ofSeconds(60),
            100_000, 0.5, Duration.ofMinutes(5), Duration.ofMinutes(30));

    private final AtomicReference<StreamSnapshot> last = new AtomicReference<>(StreamSnapshot.NONE);
    private final TelemetryBackpressure gate = new TelemetryBackpressure(new FakeTelemetryWriter(), SETTINGS, 10);
    private long lastSuccessAt = NOW;
    private final StreamHealth health = new StreamHealth(last::get, () -> lastSuccessAt, SETTINGS, gate);

    /** A group whose oldest undelivered entry is {@code ageMs} old. */
    private static StreamSnapshot withGroupBehind(long length, long ageMs) {
        String next = ageMs == 0 ? "" : (NOW - ageMs) + "-0";
        return new StreamSnapshot(length, 0, (NOW - 3_600_000) + "-0", NOW + "-0", 0, 0,
                List.of(new GroupPosition("analytics", 2, 7, "5-0", (NOW - 1000) + "-0", 42, next)), NOW);
    }

    @Test
    void noGroup_thenHealthyWhateverTheLength() {
        last.set(new StreamSnapshot(5_000, 0, "", "", 0, 0, List.of(), NOW));

        assertThat(health.assess(NOW).status()).isEqualTo(HealthStatus.HEALTHY);
    }

    @Test
    void groupKeepingUp_thenHealthyWithItsFigures() {
        last.set(withGroupBehind(100, 0));

        QueueHealth q = health.assess(NOW);

        assertThat(q.queue()).isEqualTo("telemetry-stream");
        assertThat(q.status()).isEqualTo(HealthStatus.HEALTHY);
        assertThat(q.size()).isEqualTo(100);
        @SuppressWarnings("unchecked")
        Map<String, Object> group = ((List<Map<String, Object>>) q.detail().get("groups")).get(0);
        assertThat(group).containsEntry("group", "analytics").containsEntry("lag", 42L).containsEntry("pending", 7L)
                .containsEntry("oldest_pending_age_ms", 1000L).containsEntry("lag_exact", true);
        assertThat(q.detail()).containsEntry("max_unread", 1000L).containsEntry("backpressure", false);
    }

    @Test
    void halfFull_thenDegraded() {
        last.set(withGroupBehind(500, 1000));

        assertThat(health.assess(NOW).status()).isEqualTo(HealthStatus.DEGRADED);
    }

    @Test
    void groupFiveMinutesBehind_thenDegraded_thirtyMinutes_thenUnhealthy() {
        last.set(withGroupBehind(10, Duration.ofMinutes(5).toMillis()));
        assertThat(health.assess(NOW).status()).isEqualTo(HealthStatus.DEGRADED);
        assertThat(health.assess(NOW).oldestAgeMs()).isEqualTo(Duration.ofMinutes(5).toMillis());

        last.set(withGroupBehind(10, Duration.ofMinutes(30).toMillis()));
        assertThat(health.assess(NOW).status()).isEqualTo(HealthStatus.UNHEALTHY);
    }

    @Test
    void retentionPassesFailing_thenDegradedAndSaysSo() {
        last.set(withGroupBehind(10, 0));
        lastSuccessAt = NOW - 9_000;
        assertThat(health.assess(NOW).status()).isEqualTo(HealthStatus.HEALTHY);

        lastSuccessAt = NOW - 11_000;
        QueueHealth q = health.assess(NOW);

        assertThat(q.status()).isEqualTo(HealthStatus.DEGRADED);
        assertThat(q.detail()).containsEntry("retention_failing", true).containsEntry("retention_last_success_age_ms",
                11_000L);
    }

    @Test
    void backpressureEngaged_thenUnhealthyAndReadinessGetsAReason() {
        StreamSnapshot full = withGroupBehind(1000, 1000);
        last.set(full);
        assertThat(health.notAcknowledgingReason()).isNull();

        gate.update(full);

        assertThat(health.assess(NOW).status()).isEqualTo(HealthStatus.UNHEALTHY);
        assertThat(health.notAcknowledgingReason()).contains("telemetry stream full", "1000 entries");
    }
}
