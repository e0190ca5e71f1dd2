package org.fleetpipe.teltonika.server.parts;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.config.DeviceSettings;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.limits.TokenBucket;
import org.fleetpipe.teltonika.server.session.TakeoverListener;
import org.fleetpipe.teltonika.server.tcp.AcceptRateLimit;
import org.fleetpipe.teltonika.server.tcp.PipelineServices;
import org.fleetpipe.teltonika.server.tcp.TcpChannelInitializer;
import org.fleetpipe.teltonika.server.tcp.TcpServer;
import org.fleetpipe.teltonika.server.tls.ReloadingSslContext;
import org.fleetpipe.teltonika.server.udp.UdpPacketHandler;
import org.fleetpipe.teltonika.server.udp.UdpServer;
import org.fleetpipe.teltonika.server.warmup.DevicePathWarmUp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The device listeners (TCP, TLS, UDP) with their pipelines and the budgets they share. */
public final class DeviceListenersPart implements Part {

    private static final Logger LOG = LoggerFactory.getLogger(DeviceListenersPart.class);

    private final Shared shared;
    private final ThreadsPart threads;
    private final InstancePart instance;
    private final TelemetryPart telemetry;
    private final CommandPart commands;
    private final AdmissionPart admission;
    private final CapturePart captures;
    private final TcpServer tcp = new TcpServer();
    private final TcpServer tls = new TcpServer();
    private final UdpServer udp = new UdpServer();
    private ReloadingSslContext tlsContext;
    private PeriodicJobs.Job rateSweep;
    private InetSocketAddress tcpAddress;
    private InetSocketAddress tlsAddress;
    private InetSocketAddress udpAddress;

    public DeviceListenersPart(Shared shared, ThreadsPart threads, InstancePart instance, TelemetryPart telemetry,
                        CommandPart commands, AdmissionPart admission, CapturePart captures) {
        this.shared = shared;
        this.threads = threads;
        this.instance = instance;
        this.telemetry = telemetry;
        this.commands = commands;
        this.admission = admission;
        this.captures = captures;
    }

    @Override
    public void start() throws InterruptedException {
        ServerSettings settings = shared.settings();
        DeviceSettings devices = settings.devices();
        instance.events().on(InstanceEvent.TAKEOVER, new TakeoverListener(shared.sessions(), instance.devices(),
                instance.identity()::id, shared.metrics()));
        // Logged-in connections are tracked whatever their number; datagrams of devices new past this are dropped.
        DeviceRateLimits rates = new DeviceRateLimits(devices.hostile().deviceRates(), devices.maxConnections() + 100_000);
        if (rates.enabled()) {
            // Cheap (the devices that used their budget lately), off the device loops.
            rateSweep = threads.jobs().start("device-rates", Duration.ofMinutes(1), Duration.ofMinutes(1), rates::sweep);
        }
        RefusalLog refusals = admission.refusals();
        TcpChannelInitializer plain = new TcpChannelInitializer(new PipelineServices(settings, shared.metrics(),
                telemetry.writer(), telemetry.deadLetters(), shared.sessions(), instance.devices(), shared.pending(),
                commands.dispatcher(), admission.admission(), admission.newImeis(), refusals, rates,
                captures.taps()));
        AcceptRateLimit acceptLimit = acceptLimit(devices, plain.preLoginRoom(), refusals);
        warmUp(settings);
        String host = settings.listeners().bindAddress();
        tcpAddress = tcp.bind(threads.boss(), threads.workers(), host, settings.listeners().tcpPort(), plain, acceptLimit);
        if (settings.listeners().tls().enabled()) {
            tlsContext = new ReloadingSslContext(settings.listeners().tls(), threads.jobs());
            // The same caps across both ports: a device address counts once whichever it uses.
            tlsAddress = tls.bind(threads.boss(), threads.workers(), host, settings.listeners().tls().port(),
                    plain.withTls(tlsContext, settings.listeners().tls().handshakeTimeout().toMillis()), acceptLimit);
        }
        if (settings.listeners().udpPort() > 0) {
            UdpPacketHandler handler = new UdpPacketHandler(new UdpPacketDecoder(devices.decodeLimits()),
                    devices.imeiLuhnCheck(), telemetry.writer(), telemetry.deadLetters(), shared.metrics(),
                    devices.maxUdpInFlight(), shared.pending(), admission.udpGate(), udpWriteBudget(devices), refusals,
                    rates);
            udpAddress = udp.bind(threads.workers(), host, settings.listeners().udpPort(),
                    devices.decodeLimits().maxFrameBytes(), handler);
        }
    }

    /** Before the listeners open, so the health port (started after them) says not ready meanwhile. */
    private static void warmUp(ServerSettings settings) {
        if (settings.devices().warmUp().packets() <= 0) {
            return;
        }
        DevicePathWarmUp.Result r = new DevicePathWarmUp(settings).run();
        LOG.info("warm-up: {} packets ({} records) of {} synthetic devices through the device pipeline in {} ms{};"
                        + " nothing stored or counted (WARM_UP_PACKETS)", r.packets(), r.records(), r.devices(),
                r.took().toMillis(), r.timedOut() ? ", stopped at WARM_UP_MAX_TIME" : "");
    }

    private AcceptRateLimit acceptLimit(DeviceSettings devices, AcceptRateLimit.NetworkRoom preLoginRoom,
                                        RefusalLog refusals) {
        int perSecond = devices.hostile().maxAcceptsPerSecond();
        int perNetwork = devices.hostile().maxAcceptsPerNetworkPerSecond();
        if (perSecond <= 0 && perNetwork <= 0) {
            return null;
        }
        AcceptRateLimit limit = new AcceptRateLimit(perSecond, perNetwork,
                devices.hostile().maxAcceptWaitingPerNetwork(), devices.hostile().maxAcceptWaiting(), preLoginRoom,
                new AcceptRateLimit.Events() {
                    @Override
                    public void deferred() {
                        shared.metrics().acceptDeferred();
                    }

                    @Override
                    public void paused() {
                        shared.metrics().acceptPaused();
                    }

                    @Override
                    public void refused(java.net.SocketAddress remote, String reason) {
                        shared.metrics().acceptRefused(reason);
                        refusals.refused("accept/" + RefusalLog.networkKey(remote), "connections closed at accept "
                                + "remote={} network={} reason={}: its network had MAX_ACCEPT_WAITING_PER_NETWORK "
                                + "connections waiting for their turn (network-share), or MAX_ACCEPT_WAITING waited "
                                + "in all, the most of them from its network (waiting-full)", remote,
                                RefusalLog.networkKey(remote), reason);
                    }
                });
        shared.metrics().acceptWaiting(limit::waiting);
        return limit;
    }

    /** Records from UDP per second, all sources together; a second's worth may come at once. */
    private static IntPredicate udpWriteBudget(DeviceSettings devices) {
        int perSecond = devices.hostile().maxUdpRecordsPerSecond();
        if (perSecond <= 0) {
            return records -> true;
        }
        TokenBucket budget = new TokenBucket(perSecond, Duration.ofSeconds(1));
        return budget::tryTake;
    }

    public InetSocketAddress tcpAddress() {
        return tcpAddress;
    }

    public InetSocketAddress tlsAddress() {
        return tlsAddress;
    }

    public InetSocketAddress udpAddress() {
        return udpAddress;
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) throws InterruptedException {
        switch (stage) {
            case STOP_JOBS -> {
                if (rateSweep != null) {
                    rateSweep.stop();
                }
            }
            case STOP_ACCEPTING -> {
                tcp.stopAccepting();
                tls.stopAccepting();
            }
            case STOP_READING -> {
                tcp.stopReading(budget.left());
                tls.stopReading(budget.left());
                udp.stopReading();
            }
            case AWAIT_WRITES -> {
                if (!shared.pending().awaitIdle(budget.left())) {
                    LOG.warn("{} packets or Redis calls still under way after {}; their devices get no ACK and will"
                            + " resend", shared.pending().pending(), budget.grace());
                }
            }
            case CLOSE_DEVICES -> {
                udp.close();
                // Closing and releasing always get a moment, even when the writes used up the grace.
                Duration window = budget.drainWindow();
                tcp.closeAll(window, budget.atLeastASecond());
                tls.closeAll(window, budget.atLeastASecond());
                if (tlsContext != null) {
                    tlsContext.close();
                }
            }
            case AWAIT_SESSIONS -> {
                awaitSessionsGone(budget.atLeastASecond());
                shared.pending().awaitIdle(budget.atLeastASecond());
            }
            default -> {
            }
        }
    }

    /** Each closed connection leaves the session table in its channelInactive, which issues its release. */
    private void awaitSessionsGone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (shared.sessions().size() > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }
}
