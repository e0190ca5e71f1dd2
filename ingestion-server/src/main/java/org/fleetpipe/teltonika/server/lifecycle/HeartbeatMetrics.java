package org.fleetpipe.teltonika.server.lifecycle;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.fleetpipe.teltonika.registry.HeartbeatRenewer;

/** The heartbeat's meters: renewals and failures since start. */
public final class HeartbeatMetrics {

    private HeartbeatMetrics() {
    }

    public static void bind(MeterRegistry registry, HeartbeatRenewer heartbeat) {
        FunctionCounter.builder("teltonika.heartbeat.renewals", heartbeat, HeartbeatRenewer::renewals)
                .register(registry);
        FunctionCounter.builder("teltonika.heartbeat.failures", heartbeat, HeartbeatRenewer::failures)
                .register(registry);
    }
}
