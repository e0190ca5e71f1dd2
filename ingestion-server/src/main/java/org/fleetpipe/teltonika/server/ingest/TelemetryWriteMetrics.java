package org.fleetpipe.teltonika.server.ingest;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** The telemetry writer's meters: packets stored by each of its two paths, and the lanes ready now. */
public final class TelemetryWriteMetrics {

    private TelemetryWriteMetrics() {
    }

    /** The writer's two paths: packets stored by each, and the event loops' own connections ready now. */
    public static void bind(MeterRegistry registry, RedisTelemetryWriter writer, TelemetryLanes lanes) {
        String name = "teltonika.telemetry.packets.written";
        String description = "packets stored by path: script (may be resends, or no MULTI connection) or block";
        FunctionCounter.builder(name, writer, RedisTelemetryWriter::scriptPackets).tag("path", "script")
                .description(description).register(registry);
        FunctionCounter.builder(name, writer, RedisTelemetryWriter::blockPackets).tag("path", "block")
                .description(description).register(registry);
        FunctionCounter.builder("teltonika.telemetry.blocks.written", writer, RedisTelemetryWriter::blocksWritten)
                .description("MULTI blocks stored; packets written by path block over this is packets per block")
                .register(registry);
        String pipes = "teltonika.telemetry.pipes.ready";
        String pipesDescription = "event loops' own Redis connections for MULTI blocks that are ready now";
        (lanes == null ? Gauge.builder(pipes, () -> 0) : Gauge.builder(pipes, lanes, TelemetryLanes::ready))
                .description(pipesDescription).register(registry);
    }
}
