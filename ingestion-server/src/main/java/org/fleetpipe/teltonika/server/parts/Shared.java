package org.fleetpipe.teltonika.server.parts;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.SessionTable;

/** What every part may use: the settings, the meters, the devices connected here and the calls under way. */
public record Shared(ServerSettings settings, PrometheusMeterRegistry registry, IngestionMetrics metrics,
              SessionTable sessions, PendingCalls pending) {
}
