package org.fleetpipe.teltonika.server;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.IntPredicate;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.janitor.JanitorMetrics;
import org.fleetpipe.teltonika.janitor.JanitorTicker;
import org.fleetpipe.teltonika.janitor.RegistryJanitor;
import org.fleetpipe.teltonika.registry.CommandHandBack;
import org.fleetpipe.teltonika.registry.HeartbeatRenewer;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.InstanceEvents;
import org.fleetpipe.teltonika.registry.InstanceIdAllocator;
import org.fleetpipe.teltonika.registry.InstanceIdentity;
import org.fleetpipe.teltonika.registry.LuaScript;
import org.fleetpipe.teltonika.registry.RedisConnectionRegistry;
import org.fleetpipe.teltonika.registry.RedisConnector;
import org.fleetpipe.teltonika.registry.RedisEndpoint;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.RemoteShutdown;
import org.fleetpipe.teltonika.server.admission.AdmissionLists;
import org.fleetpipe.teltonika.server.api.AdmissionResource;
import org.fleetpipe.teltonika.server.api.CommandResource;
import org.fleetpipe.teltonika.server.api.DeviceResource;
import org.fleetpipe.teltonika.server.api.InstanceResource;
import org.fleetpipe.teltonika.server.api.OperatorApi;
import org.fleetpipe.teltonika.server.api.OpsResource;
import org.fleetpipe.teltonika.server.api.SpecResource;
import org.fleetpipe.teltonika.server.command.CommandService;
import org.fleetpipe.teltonika.server.ops.DeadLetterQueries;
import org.fleetpipe.teltonika.server.session.DeviceLookup;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RedisAdmission;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.admission.RevocationListener;
import org.fleetpipe.teltonika.server.admission.RevocationSweeper;
import org.fleetpipe.teltonika.server.admission.TcpKnownImeis;
import org.fleetpipe.teltonika.server.admission.UdpAdmission;
import org.fleetpipe.teltonika.server.command.CommandDispatcher;
import org.fleetpipe.teltonika.server.command.CommandStore;
import org.fleetpipe.teltonika.server.command.RedisCommandStore;
import org.fleetpipe.teltonika.server.command.ReplyWaiter;
import org.fleetpipe.teltonika.server.command.UnsolicitedMessages;
import org.fleetpipe.teltonika.server.config.HttpSettings;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.dev.DevelopmentRedis;
import org.fleetpipe.teltonika.server.ops.Purger;
import org.fleetpipe.teltonika.server.ops.QueueHealthMonitor;
import org.fleetpipe.teltonika.server.http.BearerTokenAuth;
import org.fleetpipe.teltonika.server.http.CachedScrape;
import org.fleetpipe.teltonika.server.http.HttpConnections;
import org.fleetpipe.teltonika.server.http.OperatorHttpServer;
import org.fleetpipe.teltonika.server.http.Readiness;
import org.fleetpipe.teltonika.server.http.RequestDeadline;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RateLimitedDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.TelemetryLanes;
import org.fleetpipe.teltonika.server.ingest.ConnectionEpoch;
import org.fleetpipe.teltonika.server.ingest.ReplicaAckBatcher;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteSettings;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.fleetpipe.teltonika.server.lifecycle.InstanceRecovery;
import org.fleetpipe.teltonika.server.lifecycle.LogContext;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.lifecycle.TrackedConnectionRegistry;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.metrics.MetricsBootstrap;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.server.session.TakeoverListener;
import org.fleetpipe.teltonika.server.metrics.StreamMetrics;
import org.fleetpipe.teltonika.server.stream.StreamHealth;
import org.fleetpipe.teltonika.server.stream.StreamRetention;
import org.fleetpipe.teltonika.server.stream.TelemetryBackpressure;
import org.fleetpipe.teltonika.server.limits.TokenBucket;
import org.fleetpipe.teltonika.server.tcp.AcceptRateLimit;
import org.fleetpipe.teltonika.server.tcp.PipelineServices;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.stream.DeviceStreamShares;
import org.fleetpipe.teltonika.server.tcp.TcpChannelInitializer;
import org.fleetpipe.teltonika.server.tcp.TcpServer;
import org.fleetpipe.teltonika.server.tcp.Transports;
import org.fleetpipe.teltonika.server.tls.ReloadingSslContext;
import org.fleetpipe.teltonika.server.udp.UdpAdmissionGate;
import org.fleetpipe.teltonika.server.udp.UdpPacketHandler;
import org.fleetpipe.teltonika.server.udp.UdpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds every service from the settings, announces the instance, starts
 * the listeners, and stops them in order. Tests run it in-process on port 0.
 */
public final class IngestionServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IngestionServer.class);

    private final ServerSettings settings;
    private final TcpServer tcp = new TcpServer();
    private final TcpServer tlsTcp = new TcpServer();
    private ReloadingSslContext tlsContext;
    private InetSocketAddress tlsAddress;
    private final UdpServer udp = new UdpServer();
    private final OperatorHttpServer http = new OperatorHttpServer();
    private final OperatorHttpServer health = new OperatorHttpServer();
    private final PendingCalls pendingCalls = new PendingCalls();
    private final SessionTable sessions = new SessionTable();
    private Runnable onRemoteShutdown;
    private DevelopmentRedis embeddedRedis;
    private RedisConnector redis;
    private InstanceIdentity identity;
    private HeartbeatRenewer heartbeat;
    private InstanceEvents events;
    private CommandDispatcher commands;
    private ReplicaAckBatcher replicaAcks;
    private TelemetryLanes telemetryLanes;
    private io.lettuce.core.api.StatefulRedisConnection<String, String> durableConnection;
    private QueueHealthMonitor queueHealth;
    private StreamRetention streamRetention;
    private TelemetryBackpressure backpressure;
    private DeviceRateLimits deviceRates;
    private StreamHealth streamHealth;
    private volatile boolean redisAnswered = true;
    private RevocationSweeper revocationSweeper;
    private Purger purger;
    private JanitorTicker janitor;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private EventLoopGroup httpGroup;
    private EventLoopGroup healthGroup;
    private IngestionMetrics metrics;
    private String redisUrl;
    private String apiToken;
    private InetSocketAddress tcpAddress;
    private InetSocketAddress udpAddress;
    private InetSocketAddress httpAddress;
    private InetSocketAddress healthAddress;
    private volatile boolean stopping;
    private boolean closed;

    public IngestionServer(ServerSettings settings) {
        this.settings = settings;
        this.onRemoteShutdown = this::closeQuietly;
    }

    /** What a remote shutdown (the instance's shutdown marker) does; by default close(). The program exits 0 instead. */
    public IngestionServer onRemoteShutdown(Runnable action) {
        this.onRemoteShutdown = action;
        return this;
    }

    /** Starts everything; on failure, stops what had started and rethrows. */
    public IngestionServer start() throws InterruptedException {
        try {
            startServices();
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

    private void startServices() throws InterruptedException {
        PrometheusMeterRegistry registry = MetricsBootstrap.registry();
        metrics = new IngestionMetrics(registry);
        redisUrl = settings.redisUrl().orElseGet(this::startEmbeddedRedis);
        redis = RedisConnector.connect(redisUrl, settings.redisCommandTimeout(),
                new MicrometerCommandLatencyRecorder(registry, MicrometerOptions.create()),
                settings.hostile().redisRequestQueueSize());
        RedisKeys keys = new RedisKeys(settings.redisNamespace());
        RedisAsyncCommands<String, String> async = redis.connection().async();

        String host = InstanceIdAllocator.hostname();
        String id = InstanceIdAllocator.allocate(redis.connection().sync(), keys, settings.instanceIdPrefix());
        identity = new InstanceIdentity(id, host, System.currentTimeMillis(), version());
        LogContext.instance(id);
        heartbeat = new HeartbeatRenewer(async, keys, identity, settings.heartbeatTtl(),
                settings.heartbeatInterval(), settings.redisCommandTimeout(), settings.maxKnownInstances(),
                sessions::size);
        heartbeat.create();
        InstanceDirectory directory = new InstanceDirectory(async, keys);
        Long forgotten = directory.forgetDead().toCompletableFuture().join();
        if (forgotten > 0) {
            LOG.info("forgot {} known instance id(s) whose heartbeat is gone", forgotten);
        }

        MetricsBootstrap.heartbeat(registry, heartbeat);
        io.micrometer.core.instrument.Gauge.builder("teltonika.ready", this,
                        server -> server.readinessWithoutRedis().ready() && server.redisAnswered ? 1 : 0)
                .description("1 while /health/ready would answer 200 (Redis as of the last readiness probe)")
                .register(registry);

        TrackedConnectionRegistry devices = new TrackedConnectionRegistry(
                new RedisConnectionRegistry(async, keys, identity, settings.deviceInfoTtl(),
                        settings.hostile().deviceInfoTtlBeforeRecords()), pendingCalls);
        CommandStore commandStore = new RedisCommandStore(async, keys, identity::id, settings.commands());
        ReplyWaiter replies = new ReplyWaiter();
        commands = new CommandDispatcher(commandStore, sessions, settings.commands(), metrics, pendingCalls,
                new UnsolicitedMessages(settings.hostile().maxDeviceMessagesPerMinute(),
                        settings.hostile().maxDeviceMessageTextBytes()));
        RedisAdmission admission = new RedisAdmission(async, keys, settings.admission());
        RevocationListener revocations = new RevocationListener(sessions, admission);
        events = new InstanceEvents(redis.connectPubSub(), keys, settings.redisCommandTimeout(), Map.of(
                "takeover", new TakeoverListener(sessions, devices, identity::id, metrics),
                "command", commands::wake,
                "reply", replies::finished,
                "deny", revocations,
                "revoke", revocations,
                // The marker is the order; the message only saves waiting for the next renewal.
                "shutdown", requested -> heartbeat.renewSoon()));
        events.listen(id);
        TelemetryWriter writes;
        TelemetryWriteSettings writeSettings = new TelemetryWriteSettings(
                settings.dedupWindow(), settings.dedupPerDevice(), settings.deviceInfoTtl());
        if (settings.ackReplicas() > 0) {
            // WAIT blocks its connection, so these writes and their WAITs get one of their own.
            ConnectionEpoch epoch = new ConnectionEpoch();
            redis.client().addListener(epoch);
            durableConnection = redis.client().connect();
            epoch.watch(durableConnection);
            RedisAsyncCommands<String, String> durable = durableConnection.async();
            replicaAcks = new ReplicaAckBatcher(new RedisTelemetryWriter(durable, keys,
                    new TelemetryEntryMapper(identity::id), writeSettings), durable::waitForReplication, epoch,
                    settings.ackReplicas(), settings.ackReplicasTimeout(), metrics::replicaShortfall);
            writes = replicaAcks;
        } else {
            // A Sentinel URL has no fixed primary for a connection of our own: the script alone then.
            telemetryLanes = settings.transactionWrites()
                    ? RedisEndpoint.of(redisUrl).map(endpoint -> new TelemetryLanes(endpoint,
                            Transports.socketChannel(), settings.redisCommandTimeout())).orElse(null)
                    : null;
            RedisTelemetryWriter writer = new RedisTelemetryWriter(async, keys,
                    new TelemetryEntryMapper(identity::id), writeSettings, telemetryLanes);
            StreamMetrics.bindWrites(registry, writer, telemetryLanes);
            writes = writer;
        }
        // Each TCP connection has at most one packet in the writer (FrameSequencer), UDP at most max-udp-in-flight.
        backpressure = new TelemetryBackpressure(writes, settings.retention(),
                settings.maxConnections() + settings.maxUdpInFlight(),
                DeviceStreamShares.of(settings.retention(), settings.hostile().deviceStreamShare()),
                settings.hostile().maxHeldBytes());
        writes = backpressure;
        streamRetention = new StreamRetention(async, keys, settings.retention(), backpressure, metrics,
                settings.redisCommandTimeout());
        streamHealth = new StreamHealth(streamRetention::last, streamRetention::lastSuccessAt, settings.retention(),
                backpressure);
        StreamMetrics.bind(registry, streamRetention, backpressure);
        FrameDeadLetters deadLetters = new RateLimitedDeadLetters(new RedisFrameDeadLetters(async, keys, identity::id,
                settings.deadLetterMaxEntries(), settings.deadLetterMaxFrameBytes(),
                settings.hostile().deadLetterUnauthenticatedBytes(), metrics),
                settings.hostile().deadLettersPerSecond(), settings.hostile().deadLettersPerAddressPerMinute(), metrics);
        // In allow-list mode every IMEI that gets in was vetted: nothing new to limit.
        NewImeiLimit newImeis = settings.admission() == AdmissionMode.OPEN
                ? new NewImeiLimit(settings.hostile().maxNewImeisPerAddressPerMinute(), NewImeiLimit.knownIn(async, keys))
                : NewImeiLimit.OFF;
        RefusalLog refusals = new RefusalLog(settings.refusalLogInterval());
        // Logged-in connections are tracked whatever their number; datagrams of devices new past this are dropped.
        deviceRates = new DeviceRateLimits(settings.hostile().deviceRates(), settings.maxConnections() + 100_000);
        PipelineServices services = new PipelineServices(settings, metrics, writes, deadLetters, sessions, devices,
                pendingCalls, commands, admission, newImeis, refusals, deviceRates);

        apiToken = settings.apiToken().orElseGet(() -> {
            String token = BearerTokenAuth.randomToken();
            LOG.warn("API_TOKEN is not set: generated the operator API token {} (shown once)", token);
            return token;
        });
        CommandResource commandResource = new CommandResource(new CommandService(commandStore, replies),
                settings.commands(), metrics);
        queueHealth = new QueueHealthMonitor(async, keys, settings.ops(), settings.redisCommandTimeout(), registry,
                streamHealth);
        revocationSweeper = new RevocationSweeper(sessions, async, keys, settings.admission(),
                settings.denySweepInterval(), settings.redisCommandTimeout());
        purger = new Purger(async, keys, settings.ops(), settings.commands(), metrics, settings.redisCommandTimeout());
        OperatorApi api = OperatorApi.of(new InstanceResource(directory, new RemoteShutdown(async, keys)),
                new DeviceResource(new DeviceLookup(async, keys), commandResource), commandResource,
                new OpsResource(queueHealth, purger, new DeadLetterQueries(async, keys)),
                new AdmissionResource(new AdmissionLists(async, keys), settings.admission()), new SpecResource());
        JanitorMetrics janitorMetrics = new JanitorMetrics(registry);
        janitor = new JanitorTicker(new RegistryJanitor(async, keys, settings.janitor(), janitorMetrics,
                settings.redisCommandTimeout(), new CommandHandBack(async, keys,
                        settings.commands().deadLetterMaxEntries(), settings.commands().retention())),
                settings.janitor(), janitorMetrics);
        UdpPacketHandler udpHandler = new UdpPacketHandler(new UdpPacketDecoder(settings.decodeLimits()),
                settings.imeiLuhnCheck(), writes, deadLetters, metrics, settings.maxUdpInFlight(), pendingCalls,
                udpAdmission(settings, admission, newImeis, async, keys), udpWriteBudget(settings), refusals,
                deviceRates);
        // Every object that holds a script exists now: load them all before the first device can
        // connect, so no call has to fall back to EVAL (which would go after calls issued meanwhile).
        LuaScript.loadAll(redis.connection().sync());

        boss = Transports.group(1, new DefaultThreadFactory("accept", false));
        workers = Transports.group(settings.ioThreadCount(), new DefaultThreadFactory("io", false));
        if (telemetryLanes != null) {
            telemetryLanes.serve(workers);
        }
        MetricsBootstrap.eventLoops(registry, workers);
        if (deviceRates.enabled()) {
            // Cheap (the devices that used their budget lately), off the device loops.
            boss.scheduleAtFixedRate(deviceRates::sweep, 1, 1, TimeUnit.MINUTES);
        }
        TcpChannelInitializer plain = new TcpChannelInitializer(services);
        int acceptsPerSecond = settings.hostile().maxAcceptsPerSecond();
        int acceptsPerNetwork = settings.hostile().maxAcceptsPerNetworkPerSecond();
        AcceptRateLimit acceptLimit = acceptsPerSecond > 0 || acceptsPerNetwork > 0
                ? new AcceptRateLimit(acceptsPerSecond, acceptsPerNetwork, metrics::acceptPaused, remote -> {
                    metrics.acceptRefusedForNetwork();
                    refusals.refused("accept/" + RefusalLog.networkKey(remote), "connections closed at accept "
                            + "remote={} network={}: more than {} new connections per second from its network "
                            + "(MAX_ACCEPTS_PER_NETWORK_PER_SECOND)", remote, RefusalLog.networkKey(remote),
                            acceptsPerNetwork);
                })
                : null;
        tcpAddress = tcp.bind(boss, workers, settings.bindAddress(), settings.tcpPort(), plain, acceptLimit);
        if (settings.tls().enabled()) {
            tlsContext = new ReloadingSslContext(settings.tls());
            // The same caps across both ports: a device address counts once whichever it uses.
            tlsAddress = tlsTcp.bind(boss, workers, settings.bindAddress(), settings.tls().port(),
                    plain.withTls(tlsContext, settings.tls().handshakeTimeout().toMillis()), acceptLimit);
        }
        if (settings.udpPort() > 0) {
            udpAddress = udp.bind(workers, settings.bindAddress(), settings.udpPort(),
                    settings.decodeLimits().maxFrameBytes(), udpHandler);
        }
        // One thread of its own: HTTP work (a scrape, a slow client) never delays a device's ACK.
        httpGroup = Transports.group(1, new DefaultThreadFactory("http", false));
        HttpSettings httpSettings = settings.http();
        CachedScrape scrape = new CachedScrape(registry::scrape, Duration.ofSeconds(1));
        BearerTokenAuth auth = new BearerTokenAuth(apiToken, httpSettings.readToken());
        // Longer than the longest wait_ms, so a waiting request is answered.
        Duration readTimeout = settings.commands().maxWait().plusSeconds(30);
        httpAddress = http.bind(httpGroup, httpSettings.bindAddress(), settings.httpPort(), OperatorHttpServer.api(
                new HttpConnections(httpSettings.maxConnections(), httpSettings.maxConnectionsPerAddress(), registry),
                this::readiness, scrape, auth, api, readTimeout,
                RequestDeadline.api(httpSettings.requestTimeout(), registry)));
        // And the probes a listener and a thread of their own: API clients filling the API port's
        // cap, or keeping its thread busy, never make Kubernetes restart the pod.
        healthGroup = Transports.group(1, new DefaultThreadFactory("health", false));
        healthAddress = health.bind(healthGroup, httpSettings.bindAddress(), httpSettings.healthPort(),
                OperatorHttpServer.health(HttpConnections.health(httpSettings.healthMaxConnections(), registry),
                        this::readiness, scrape, readTimeout,
                        RequestDeadline.health(httpSettings.requestTimeout(), registry)));
        LOG.info("operator API tokens: operator token={} read-only token={} (fingerprints: the first 8 hex digits"
                + " of the token's SHA-256, as the 'api change' log lines name them)", auth.operatorFingerprint(),
                auth.readFingerprint().orElse("none"));

        identity.listeningOn(tcpAddress.getPort(), httpAddress.getPort());
        heartbeat.start(new InstanceRecovery(redis.connection().sync(), keys, settings.instanceIdPrefix(), heartbeat,
                events, sessions, devices, () -> onRemoteShutdown.run(), imei -> commands.wake(imei.value())));
        heartbeat.renewSoon();
        commands.start();
        streamRetention.start();
        queueHealth.start();
        revocationSweeper.start();
        purger.start();
        janitor.start();
        LOG.info("ready: instance={} tcp={} tls={} udp={} http={} health={} redis={} transport={}", id, tcpAddress,
                tlsAddress == null ? "off" : tlsAddress, udpAddress == null ? "off" : udpAddress, httpAddress,
                healthAddress, redactedRedisUrl(), Transports.name());
    }

    /** In open mode with UDP_ADMISSION=tcp-known, only IMEIs that logged in over TCP; the allow-list decides otherwise. */
    private static UdpAdmissionGate udpAdmission(ServerSettings settings, RedisAdmission admission,
                                                 NewImeiLimit newImeis, RedisAsyncCommands<String, String> async,
                                                 RedisKeys keys) {
        boolean tcpKnown = settings.admission() == AdmissionMode.OPEN
                && settings.hostile().udpAdmission() == UdpAdmission.TCP_KNOWN;
        return new UdpAdmissionGate(admission,
                tcpKnown ? new TcpKnownImeis(TcpKnownImeis.deviceInfoIn(async, keys)) : null, newImeis);
    }

    /** Records from UDP per second, all sources together; a second's worth may come at once. */
    private static IntPredicate udpWriteBudget(ServerSettings settings) {
        int perSecond = settings.hostile().maxUdpRecordsPerSecond();
        if (perSecond <= 0) {
            return records -> true;
        }
        TokenBucket budget = new TokenBucket(perSecond, Duration.ofSeconds(1));
        return budget::tryTake;
    }

    private String startEmbeddedRedis() {
        embeddedRedis = DevelopmentRedis.start(settings.embeddedRedisPort());
        // The URL holds a random password: shown once, like a generated API token (redacted elsewhere).
        LOG.warn("REDIS_URL is not set: started an embedded Redis for development ({}), with a random password,"
                + " shown once: export REDIS_URL={} for redis-cli -u \"$REDIS_URL\" and the reference consumer."
                + " Set REDIS_URL in production.", embeddedRedis.description(), embeddedRedis.uri());
        return embeddedRedis.uri();
    }

    private static String version() {
        String v = IngestionServer.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private CompletionStage<Readiness> readiness() {
        Readiness known = readinessWithoutRedis();
        if (!known.ready()) {
            return CompletableFuture.completedFuture(known);
        }
        return redis.connection().async().ping().toCompletableFuture()
                .orTimeout(2, TimeUnit.SECONDS)
                .handle((pong, error) -> {
                    redisAnswered = error == null;
                    return redisAnswered ? known : Readiness.notReady("redis does not answer")
                            .withTelemetry(known.telemetry());
                });
    }

    /** Everything readiness checks but a fresh PING; {@code teltonika_ready} shows it with the last PING's answer. */
    private Readiness readinessWithoutRedis() {
        String telemetry = streamHealth == null ? "healthy"
                : streamHealth.assess(System.currentTimeMillis()).status().label();
        if (stopping) {
            return Readiness.notReady("stopping").withTelemetry(telemetry);
        }
        if (replicaAcks != null && replicaAcks.behindWithin(Duration.ofSeconds(5))) {
            return Readiness.notReady("replicas do not confirm writes (ACK_REPLICAS=" + settings.ackReplicas()
                    + "): packets are not acknowledged").withTelemetry(telemetry);
        }
        // A full stream is not this pod's fault: every replica shares it, and 503 everywhere would take
        // the whole Service away. It shows as the telemetry status and on the queue health and metrics.
        if (!heartbeat.isFresh()) {
            return Readiness.notReady("heartbeat not renewed within two periods").withTelemetry(telemetry);
        }
        String streamFull = streamHealth == null ? null : streamHealth.notAcknowledgingReason();
        return (streamFull == null ? Readiness.ok() : Readiness.readyWhile(streamFull)).withTelemetry(telemetry);
    }

    private String redactedRedisUrl() {
        return redisUrl.replaceAll("//[^@/]*@", "//***@");
    }

    private void closeQuietly() {
        try {
            close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops in order: not ready, stop accepting, let in-flight writes finish, close devices (each
     * releases its registry entry), retire the heartbeat, then Redis and the event loops.
     */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        // One budget for the whole stop, so Kubernetes' termination grace period can be sized from it.
        long deadline = System.nanoTime() + settings.shutdownGrace().toNanos();
        if (janitor != null) {
            janitor.close();
        }
        if (commands != null) {
            commands.close();
        }
        if (revocationSweeper != null) {
            revocationSweeper.close();
        }
        if (queueHealth != null) {
            queueHealth.close();
        }
        if (streamRetention != null) {
            streamRetention.close();
        }
        if (purger != null) {
            purger.close();
        }
        tcp.stopAccepting();
        tlsTcp.stopAccepting();
        tcp.stopReading(left(deadline));
        tlsTcp.stopReading(left(deadline));
        udp.stopReading();
        if (backpressure != null) {
            // Held packets would never be written now: their devices resend to another replica.
            backpressure.close();
        }
        if (!pendingCalls.awaitIdle(left(deadline))) {
            LOG.warn("{} packets or Redis calls still under way after {}; their devices get no ACK and will resend",
                    pendingCalls.pending(), settings.shutdownGrace());
        }
        udp.close();
        // Closing and releasing always get a moment, even when the writes used up the grace.
        // Within the grace: the drain window never pushes the stop past it.
        Duration window = min(settings.drainWindow(), left(deadline));
        tcp.closeAll(window, atLeastASecond(deadline));
        tlsTcp.closeAll(window, atLeastASecond(deadline));
        if (tlsContext != null) {
            tlsContext.close();
        }
        awaitSessionsGone(atLeastASecond(deadline));
        pendingCalls.awaitIdle(atLeastASecond(deadline));
        if (heartbeat != null) {
            heartbeat.retire();
        }
        http.close();
        health.close();
        if (events != null) {
            events.close();
        }
        if (durableConnection != null) {
            durableConnection.close();
        }
        if (telemetryLanes != null) {
            telemetryLanes.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        if (httpGroup != null) {
            httpGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        if (healthGroup != null) {
            healthGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        if (embeddedRedis != null) {
            embeddedRedis.close();
        }
        LOG.info("stopped: instance={}", identity);
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration atLeastASecond(long deadline) {
        Duration left = left(deadline);
        return left.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : left;
    }

    /** Each closed connection leaves the session table in its channelInactive, which issues its release. */
    private void awaitSessionsGone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (sessions.size() > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    public InetSocketAddress tcpAddress() {
        return tcpAddress;
    }

    /** The TLS listener's address, or null when TLS is off. */
    public InetSocketAddress tlsAddress() {
        return tlsAddress;
    }

    public InetSocketAddress udpAddress() {
        return udpAddress;
    }

    public InetSocketAddress httpAddress() {
        return httpAddress;
    }

    /** The health listener's address ({@code /health/*} and {@code /metrics}). */
    public InetSocketAddress healthAddress() {
        return healthAddress;
    }

    /** The current instance id (it changes only after a lost heartbeat). */
    public String instanceId() {
        return identity == null ? null : identity.id();
    }

    public String apiToken() {
        return apiToken;
    }

    public IngestionMetrics metrics() {
        return metrics;
    }

    public SessionTable sessions() {
        return sessions;
    }
}
