package org.fleetpipe.teltonika.server.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The teltonika_queue_* gauges, read from the monitor's report at each scrape. They hold the
 * supplier strongly: a gauge keeps only a weak reference by default, and a method reference held
 * by nothing else would be collected (the gauges would read NaN).
 */
final class QueueHealthGauges {

    private QueueHealthGauges() {
    }

    static void register(MeterRegistry meters, List<String> queues, Supplier<QueueHealthMonitor.Report> report) {
        for (String queue : queues) {
            gauge(meters, report, "teltonika.queue.size", queue, QueueHealth::size);
            gauge(meters, report, "teltonika.queue.oldest.age.seconds", queue, q -> q.oldestAgeMs() / 1000.0);
            gauge(meters, report, "teltonika.queue.avg.age.seconds", queue, q -> q.avgAgeMs() / 1000.0);
            gauge(meters, report, "teltonika.queue.rate.per.minute", queue, QueueHealth::ratePerMinute);
            gauge(meters, report, "teltonika.queue.stuck", queue, QueueHealth::stuck);
            gauge(meters, report, "teltonika.queue.status", queue, q -> q.status().ordinal());
        }
        Gauge.builder("teltonika.queue.health", report, r -> r.get().status().ordinal())
                .description("worst queue status: 0 healthy, 1 degraded, 2 unhealthy").strongReference(true)
                .register(meters);
    }

    private static void gauge(MeterRegistry meters, Supplier<QueueHealthMonitor.Report> report, String name,
                              String queue, ToDoubleFunction<QueueHealth> value) {
        Gauge.builder(name, report, r -> r.get().queues().stream().filter(q -> q.queue().equals(queue))
                .mapToDouble(value).findFirst().orElse(0)).tag("queue", queue).strongReference(true).register(meters);
    }
}
