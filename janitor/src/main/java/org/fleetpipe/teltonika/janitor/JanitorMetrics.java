package org.fleetpipe.teltonika.janitor;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The janitor's meters. {@code teltonika_registry_janitor_evicted_total{instance_id}} is fixed by
 * the contract; it is tagged by the dead instance's id, one series per instance that ever died.
 */
public final class JanitorMetrics {

    private final MeterRegistry registry;
    private final Counter passes;
    private final Counter failedPasses;
    private final Counter errors;
    private final Timer duration;

    public JanitorMetrics(MeterRegistry registry) {
        this.registry = registry;
        passes = Counter.builder("teltonika.registry.janitor.passes").tag("result", "ok").register(registry);
        failedPasses = Counter.builder("teltonika.registry.janitor.passes").tag("result", "failed").register(registry);
        errors = Counter.builder("teltonika.registry.janitor.errors").register(registry);
        duration = Timer.builder("teltonika.registry.janitor.duration").register(registry);
    }

    void evicted(String deadInstanceId, long n) {
        Counter.builder("teltonika.registry.janitor.evicted").tag("instance_id", deadInstanceId)
                .register(registry).increment(n);
    }

    void pass(SweepResult result) {
        passes.increment();
        errors.increment(result.errors());
        duration.record(result.elapsed());
    }

    void failedPass() {
        failedPasses.increment();
    }
}
