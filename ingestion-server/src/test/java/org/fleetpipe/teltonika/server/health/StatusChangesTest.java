package org.fleetpipe.teltonika.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A status change is logged once, naming queue, from, to and why; an unchanged status logs nothing. */
class StatusChangesTest {

    private final StatusChanges changes = new StatusChanges();

    private static QueueHealth q(HealthStatus status, String why) {
        return new QueueHealth("dlq-frames", 1, 0, 0, 0, 0, status, why, Map.of());
    }

    @Test
    void eachChange_loggedOnce_withQueueFromToAndWhy() {
        assertThat(changes.observe(List.of(q(HealthStatus.HEALTHY, "0 new")))).isEmpty();
        assertThat(changes.observe(List.of(q(HealthStatus.DEGRADED, "150 new in 15 min >= 100")))).containsExactly(
                "queue health changed queue=dlq-frames from=healthy to=degraded why=\"150 new in 15 min >= 100\"");
        assertThat(changes.observe(List.of(q(HealthStatus.DEGRADED, "160 new in 15 min >= 100")))).isEmpty();
        assertThat(changes.observe(List.of(q(HealthStatus.UNHEALTHY, "1000 new in 15 min >= 1000")))).hasSize(1);
        assertThat(changes.observe(List.of(q(HealthStatus.HEALTHY, "3 new in 15 min")))).containsExactly(
                "queue health changed queue=dlq-frames from=unhealthy to=healthy why=\"3 new in 15 min\"");
        assertThat(changes.observe(List.of(q(HealthStatus.HEALTHY, "0 new")))).isEmpty();
    }
}
