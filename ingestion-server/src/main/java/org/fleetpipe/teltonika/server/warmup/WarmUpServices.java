package org.fleetpipe.teltonika.server.warmup;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.capture.CaptureMetrics;
import org.fleetpipe.teltonika.server.capture.CaptureSink;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.server.tcp.CaptureTaps;
import org.fleetpipe.teltonika.server.tcp.PipelineServices;

/**
 * The device pipeline's services for the warm-up: the server's settings, and for everything that
 * would reach Redis, the registry, the sessions or the metrics a private stand-in that keeps nothing
 * (its own meter registry, session table and in-flight count, a writer and registry that store nothing).
 */
final class WarmUpServices {

    private WarmUpServices() {
    }

    static PipelineServices of(ServerSettings settings, DiscardingTelemetryWriter writer) {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        SessionTable sessions = new SessionTable();
        FrameDeadLetters noDeadLetters = (origin, reason, detail, bytes) -> CompletableFuture.completedFuture(null);
        return new PipelineServices(settings, new IngestionMetrics(meters), writer, noDeadLetters, sessions,
                new UnsharedConnectionRegistry(), new PendingCalls(), DeviceCommands.NONE, Admission.OPEN,
                NewImeiLimit.OFF, new RefusalLog(Duration.ofMinutes(1)),
                new DeviceRateLimits(settings.devices().hostile().deviceRates(), 10_000),
                new CaptureTaps(CaptureSink.NONE, new CaptureMetrics(meters), sessions), false);
    }
}
