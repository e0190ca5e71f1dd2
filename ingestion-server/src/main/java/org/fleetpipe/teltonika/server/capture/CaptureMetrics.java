package org.fleetpipe.teltonika.server.capture;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.IntSupplier;

/** The captures' meters: those running here, entries stored, captures stopped by the byte cap, entries dropped. */
public final class CaptureMetrics {

    private final MeterRegistry registry;
    private final Counter written;
    private final Counter capped;
    private final Counter dropped;

    public CaptureMetrics(MeterRegistry registry) {
        this.registry = registry;
        written = Counter.builder("teltonika.capture.entries.written")
                .description("capture entries stored (frames of captured devices, both ways)").register(registry);
        capped = Counter.builder("teltonika.capture.stopped").tag("reason", "max-bytes")
                .description("captures stopped because they reached CAPTURE_MAX_BYTES").register(registry);
        dropped = Counter.builder("teltonika.capture.entries.dropped")
                .description("capture entries not stored: Redis failed or too many were waiting for it")
                .register(registry);
    }

    /** The gauge of captures running on this instance's connections. */
    public void active(IntSupplier count) {
        Gauge.builder("teltonika.captures.active", count::getAsInt)
                .description("captured device connections on this instance").register(registry);
    }

    public void written() {
        written.increment();
    }

    public void stoppedByCap() {
        capped.increment();
    }

    public void dropped() {
        dropped.increment();
    }
}
