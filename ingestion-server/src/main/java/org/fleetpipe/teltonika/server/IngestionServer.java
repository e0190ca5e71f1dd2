package org.fleetpipe.teltonika.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.util.Arrays;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.metrics.MetricsBootstrap;
import org.fleetpipe.teltonika.server.parts.AdmissionPart;
import org.fleetpipe.teltonika.server.parts.AnnouncePart;
import org.fleetpipe.teltonika.server.parts.CapturePart;
import org.fleetpipe.teltonika.server.parts.CommandPart;
import org.fleetpipe.teltonika.server.parts.DeviceListenersPart;
import org.fleetpipe.teltonika.server.parts.HttpPart;
import org.fleetpipe.teltonika.server.parts.InstancePart;
import org.fleetpipe.teltonika.server.parts.OpsPart;
import org.fleetpipe.teltonika.server.parts.RedisPart;
import org.fleetpipe.teltonika.server.parts.ServerParts;
import org.fleetpipe.teltonika.server.parts.ServerReadiness;
import org.fleetpipe.teltonika.server.parts.Shared;
import org.fleetpipe.teltonika.server.parts.StopBudget;
import org.fleetpipe.teltonika.server.parts.TelemetryPart;
import org.fleetpipe.teltonika.server.parts.ThreadsPart;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the server's parts, started in order, each after the parts it uses, and
 * stopped through the drain's stages (parts.StopStage) in reverse. Tests run it in-process on port 0.
 */
public final class IngestionServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IngestionServer.class);

    private final Shared shared;
    private final ServerParts parts = new ServerParts();
    private Runnable onRemoteShutdown;
    private InstancePart instance;
    private DeviceListenersPart devices;
    private HttpPart http;
    private ServerReadiness readiness;
    private boolean closed;

    public IngestionServer(ServerSettings settings) {
        PrometheusMeterRegistry registry = MetricsBootstrap.registry();
        this.shared = new Shared(settings, registry, new IngestionMetrics(registry), new SessionTable(), new PendingCalls());
        this.onRemoteShutdown = () -> {
            try {
                close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** What a remote shutdown (the instance's shutdown marker) does; by default close(). The program exits 0 instead. */
    public IngestionServer onRemoteShutdown(Runnable action) {
        this.onRemoteShutdown = action;
        return this;
    }

    /** Starts every part; on failure, stops what had started and rethrows. */
    public IngestionServer start() throws InterruptedException {
        try {
            startParts();
            return this;
        } catch (RuntimeException | InterruptedException e) {
            close();
            throw e;
        } catch (Exception e) {
            // Netty rethrows a failed bind's checked IOException undeclared.
            close();
            throw new IllegalStateException("could not start: " + e, e);
        }
    }

    private void startParts() throws Exception {
        shared.metrics().closeReasons(Arrays.stream(DisconnectReason.values()).map(DisconnectReason::label).toList());
        ThreadsPart threads = parts.start(new ThreadsPart(shared));
        RedisPart redis = parts.start(new RedisPart(shared));
        instance = parts.start(new InstancePart(shared, redis));
        TelemetryPart telemetry = parts.start(new TelemetryPart(shared, redis, instance, threads));
        readiness = new ServerReadiness(instance, telemetry, redis, shared.settings().telemetry().ackReplicas(),
                shared.registry());
        CommandPart commands = parts.start(new CommandPart(shared, redis, instance, threads));
        AdmissionPart admission = parts.start(new AdmissionPart(shared, redis, instance, threads));
        OpsPart ops = parts.start(new OpsPart(shared, redis, telemetry, commands, threads, instance));
        CapturePart captures = parts.start(new CapturePart(shared, redis, instance));
        devices = parts.start(new DeviceListenersPart(shared, threads, instance, telemetry, commands, admission,
                captures));
        http = parts.start(new HttpPart(shared, redis, instance, commands, admission, ops, captures, readiness));
        parts.start(new AnnouncePart(shared, redis, instance, commands, devices, http, () -> onRemoteShutdown.run()));
    }

    /** Not ready, then every stage of the drain (stop accepting, writes finish, devices close, heartbeat goes). */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        if (readiness != null) {
            readiness.stopping();
        }
        ServerSettings settings = shared.settings();
        parts.stop(new StopBudget(settings.shutdown().grace(), settings.shutdown().drainWindow()));
        LOG.info("stopped: instance={}", instance == null ? null : instance.identity());
    }

    public InetSocketAddress tcpAddress() {
        return devices == null ? null : devices.tcpAddress();
    }

    public InetSocketAddress tlsAddress() { // null when TLS is off
        return devices == null ? null : devices.tlsAddress();
    }

    public InetSocketAddress udpAddress() {
        return devices == null ? null : devices.udpAddress();
    }

    public InetSocketAddress httpAddress() {
        return http == null ? null : http.apiAddress();
    }

    /** The health listener's address ({@code /health/*} and {@code /metrics}). */
    public InetSocketAddress healthAddress() {
        return http == null ? null : http.healthAddress();
    }

    /** The current instance id (it changes only after a lost heartbeat). */
    public String instanceId() {
        return instance == null || instance.identity() == null ? null : instance.identity().id();
    }

    public String apiToken() {
        return http == null ? null : http.apiToken();
    }

    public IngestionMetrics metrics() {
        return shared.metrics();
    }

    public SessionTable sessions() {
        return shared.sessions();
    }
}
