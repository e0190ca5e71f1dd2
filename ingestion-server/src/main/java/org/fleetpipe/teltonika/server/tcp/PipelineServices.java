package org.fleetpipe.teltonika.server.tcp;

import org.fleetpipe.teltonika.registry.ConnectionRegistry;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.SessionTable;

/**
 * What the device pipelines need from the rest of the server; tests pass fakes of the interfaces.
 *
 * @param inFlight counts each packet from its write until its ACK is written, for a clean stop
 * @param commands the command side: told of logins, command frames and disconnects
 * @param admission which well-formed IMEIs may log in
 * @param newImeis  how many IMEIs new to the fleet one source network may bring in
 * @param refusals  rate-limited log of refused logins
 * @param rates     each device's budget of records and bytes per second
 * @param captures  the support captures: which devices' frames go to their capture stream
 * @param logSessions whether logins and disconnects are logged: not for the warm-up's synthetic devices
 */
public record PipelineServices(ServerSettings settings, IngestionMetrics metrics, TelemetryWriter telemetry,
                               FrameDeadLetters deadLetters, SessionTable sessions, ConnectionRegistry registry,
                               PendingCalls inFlight, DeviceCommands commands, Admission admission,
                               NewImeiLimit newImeis, RefusalLog refusals, DeviceRateLimits rates,
                               CaptureTaps captures, boolean logSessions) {

    /** The services of the real device listeners: every session logged. */
    public PipelineServices(ServerSettings settings, IngestionMetrics metrics, TelemetryWriter telemetry,
                            FrameDeadLetters deadLetters, SessionTable sessions, ConnectionRegistry registry,
                            PendingCalls inFlight, DeviceCommands commands, Admission admission,
                            NewImeiLimit newImeis, RefusalLog refusals, DeviceRateLimits rates,
                            CaptureTaps captures) {
        this(settings, metrics, telemetry, deadLetters, sessions, registry, inFlight, commands, admission, newImeis,
                refusals, rates, captures, true);
    }
}
