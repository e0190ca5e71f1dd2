package org.fleetpipe.teltonika.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** teltonika_queue_health, teltonika_queue_stuck and the other gauges for constructed situations. */
class QueueHealthGaugesTest {

    private static final long NOW = 1_800_000_000_000L;

    private final QueueStatusRules rules = new QueueStatusRules(HealthSettings.defaults());
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicReference<QueueHealthMonitor.Report> report = new AtomicReference<>();

    @BeforeEach
    void register() {
        QueueHealthGauges.register(meters, QueueHealthMonitor.QUEUES, report::get);
    }

    /** A report of the five queues, all empty but those given. */
    private void situation(QueueHealth... queues) {
        List<QueueHealth> all = new ArrayList<>();
        for (String name : QueueHealthMonitor.QUEUES) {
            QueueHealth q = new QueueHealth(name, 0, 0, 0, HealthStatus.HEALTHY);
            for (QueueHealth given : queues) {
                if (given.queue().equals(name)) {
                    q = given;
                }
            }
            all.add(q);
        }
        report.set(QueueHealthMonitor.Report.of(all, NOW));
    }

    private QueueHealth commands(String queue, long size, long stuck, long due) {
        QueueStatusRules.Verdict v = rules.commands(stuck, due);
        return new QueueHealth(queue, size, 600_000, 300_000, 2.5, stuck, v.status(), v.reason(), Map.of());
    }

    private QueueHealth deadLetters(String queue, long size, long added) {
        QueueStatusRules.Verdict v = rules.deadLetters(added);
        return new QueueHealth(queue, size, 0, 0, added / 15.0, 0, v.status(), v.reason(), Map.of());
    }

    private double gauge(String name, String queue) {
        return meters.get(name).tag("queue", queue).gauge().value();
    }

    private double health() {
        return meters.get("teltonika.queue.health").gauge().value();
    }

    @Test
    void gauges_afterAGarbageCollection_stillReadTheReport() {
        situation(commands("pending-commands", 40, 12, 12));

        System.gc();

        assertThat(health()).isEqualTo(1);
        assertThat(gauge("teltonika.queue.stuck", "pending-commands")).isEqualTo(12);
    }

    @Test
    void nothingQueued_thenHealth0_andNothingStuck() {
        situation();

        assertThat(health()).isZero();
        for (String queue : QueueHealthMonitor.QUEUES) {
            assertThat(gauge("teltonika.queue.stuck", queue)).isZero();
            assertThat(gauge("teltonika.queue.status", queue)).isZero();
        }
    }

    @Test
    void manyCommandsForOfflineDevices_nothingDue_thenHealth0_andStuck0() {
        situation(commands("pending-commands", 5_000, 0, 0));

        assertThat(health()).isZero();
        assertThat(gauge("teltonika.queue.stuck", "pending-commands")).isZero();
        assertThat(gauge("teltonika.queue.size", "pending-commands")).isEqualTo(5_000);
    }

    @Test
    void nineStuck_thenStuck9_butHealth0() {
        situation(commands("pending-commands", 9, 9, 9));

        assertThat(gauge("teltonika.queue.stuck", "pending-commands")).isEqualTo(9);
        assertThat(health()).isZero();
    }

    @Test
    void twelveStuckQueued_thenStuck12_status1_health1() {
        situation(commands("pending-commands", 40, 12, 12));

        assertThat(gauge("teltonika.queue.stuck", "pending-commands")).isEqualTo(12);
        assertThat(gauge("teltonika.queue.status", "pending-commands")).isEqualTo(1);
        assertThat(gauge("teltonika.queue.stuck", "inflight-commands")).isZero();
        assertThat(health()).isEqualTo(1);
        assertThat(gauge("teltonika.queue.oldest.age.seconds", "pending-commands")).isEqualTo(600);
        assertThat(gauge("teltonika.queue.avg.age.seconds", "pending-commands")).isEqualTo(300);
        assertThat(gauge("teltonika.queue.rate.per.minute", "pending-commands")).isEqualTo(2.5);
    }

    @Test
    void fiftyStuckInFlight_thenStuck50_health2() {
        situation(commands("pending-commands", 40, 12, 12), commands("inflight-commands", 60, 50, 60));

        assertThat(gauge("teltonika.queue.stuck", "inflight-commands")).isEqualTo(50);
        assertThat(gauge("teltonika.queue.status", "inflight-commands")).isEqualTo(2);
        assertThat(health()).as("the worst of all").isEqualTo(2);
    }

    @Test
    void deadLetterBurst_inTheWindow_thenHealth1Or2_olderThanTheWindow_thenHealth0WhateverTheSize() {
        situation(deadLetters("dlq-frames", 150, 150));
        assertThat(health()).isEqualTo(1);
        assertThat(gauge("teltonika.queue.stuck", "dlq-frames")).isZero();

        situation(deadLetters("dlq-commands", 1_000, 1_000));
        assertThat(health()).isEqualTo(2);

        situation(deadLetters("dlq-frames", 10_000, 0), deadLetters("dlq-commands", 10_000, 99));
        assertThat(health()).isZero();
        assertThat(gauge("teltonika.queue.size", "dlq-frames")).isEqualTo(10_000);
    }

    @Test
    void telemetryStreamUnhealthy_thenHealth2_whateverTheCommandQueues() {
        situation(new QueueHealth(StreamHealth.QUEUE, 10, 0, 0, HealthStatus.UNHEALTHY));

        assertThat(health()).isEqualTo(2);
        assertThat(gauge("teltonika.queue.status", StreamHealth.QUEUE)).isEqualTo(2);
    }
}
