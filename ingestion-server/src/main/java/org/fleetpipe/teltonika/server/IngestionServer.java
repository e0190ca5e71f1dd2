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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.registry.HeartbeatRenewer;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.InstanceEvents;
import org.fleetpipe.teltonika.registry.InstanceIdAllocator;
import org.fleetpipe.teltonika.registry.InstanceIdentity;
import org.fleetpipe.teltonika.redis.LuaScript;
import org.fleetpipe.teltonika.registry.RedisConnectionRegistry;
import org.fleetpipe.teltonika.redis.RedisConnector;
import org.fleetpipe.teltonika.redis.RedisEndpoint;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.RegistryScripts;
import org.fleetpipe.teltonika.registry.RemoteShutdown;
import org.fleetpipe.teltonika.registry.janitor.JanitorMetrics;
import org.fleetpipe.teltonika.registry.janitor.JanitorTicker;
import org.fleetpipe.teltonika.registry.janitor.RegistryJanitor;
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
import org.fleetpipe.teltonika.server.admission.AdmissionScripts;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RedisAdmission;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.admission.RevocationListener;
import org.fleetpipe.teltonika.server.admission.RevocationSweeper;
import org.fleetpipe.teltonika.server.admission.TcpKnownImeis;
import org.fleetpipe.teltonika.server.admission.UdpAdmission;
import org.fleetpipe.teltonika.server.command.CommandDispatcher;
import org.fleetpipe.teltonika.server.command.CommandHandBack;
import org.fleetpipe.teltonika.server.command.CommandScripts;
import org.fleetpipe.teltonika.server.command.CommandStore;
import org.fleetpipe.teltonika.server.command.DeadInstanceCommands;
import org.fleetpipe.teltonika.server.command.RedisCommandStore;
import org.fleetpipe.teltonika.server.command.ReplyWaiter;
import org.fleetpipe.teltonika.server.command.UnsolicitedMessages;
import org.fleetpipe.teltonika.server.config.HttpSettings;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.dev.DevelopmentRedis;
import org.fleetpipe.teltonika.server.ops.Purger;
import org.fleetpipe.teltonika.server.health.QueueHealthMonitor;
import org.fleetpipe.teltonika.server.http.BearerTokenAuth;
import org.fleetpipe.teltonika.server.http.CachedScrape;
import org.fleetpipe.teltonika.server.http.HttpConnections;
import org.fleetpipe.teltonika.server.http.OperatorHttpServer;
import org.fleetpipe.teltonika.server.http.Readiness;
import org.fleetpipe.teltonika.server.http.RequestDeadline;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.IngestScripts;
import org.fleetpipe.teltonika.server.ingest.RateLimitedDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RecordValidity;
import org.fleetpipe.teltonika.server.ingest.RecordValidityMetrics;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.TelemetryLanes;
import org.fleetpipe.teltonika.server.ingest.ConnectionEpoch;
import org.fleetpipe.teltonika.server.ingest.ReplicaAckBatcher;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteSettings;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteMetrics;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.fleetpipe.teltonika.server.lifecycle.HeartbeatMetrics;
import org.fleetpipe.teltonika.server.lifecycle.InstanceRecovery;
import org.fleetpipe.teltonika.server.lifecycle.LogContext;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.lifecycle.TrackedConnectionRegistry;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.metrics.MetricsBootstrap;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.server.session.TakeoverListener;
import org.fleetpipe.teltonika.server.health.StreamHealth;
import org.fleetpipe.teltonika.server.stream.StreamMetrics;
import org.fleetpipe.teltonika.server.stream.StreamRetention;
import org.fleetpipe.teltonika.server.stream.StreamScripts;
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
        metrics.closeReasons(Arrays.stream(DisconnectReason.values()).map(DisconnectReason::label).toList());
        redisUrl = settings.redis().url().orElseGet(this::startEmbeddedRedis);
        redis = RedisConnector.connect(redisUrl, settings.redis().commandTimeout(),
                new MicrometerCommandLatencyRecorder(registry, MicrometerOptions.create()),
                settings.devices().hostile().redisRequestQueueSize());
        RedisKeys keys = new RedisKeys(settings.redis().namespace());
        RedisAsyncCommands<String, String> async = redis.connection().async();

        String host = InstanceIdAllocator.hostname();
        String id = InstanceIdAllocator.allocate(redis.connection().sync(), keys, settings.instance().idPrefix());
        identity = new InstanceIdentity(id, host, System.currentTimeMillis(), version());
        LogContext.instance(id);
        heartbeat = new HeartbeatRenewer(async, keys, identity, settings.instance().heartbeatTtl(),
                settings.instance().heartbeatInterval(), settings.redis().commandTimeout(), settings.instance().maxKnownInstances(),
                sessions::size);
        heartbeat.create();
        InstanceDirectory directory = new InstanceDirectory(async, keys);
        Long forgotten = directory.forgetDead().toCompletableFuture().join();
        if (forgotten > 0) {
            LOG.info("forgot {} known instance id(s) whose heartbeat is gone", forgotten);
        }

        HeartbeatMetrics.bind(registry, heartbeat);
        io.micrometer.core.instrument.Gauge.builder("teltonika.ready", this,
                        server -> server.readinessWithoutRedis().ready() && server.redisAnswered ? 1 : 0)
                .description("1 while /health/ready would answer 200 (Redis as of the last readiness probe)")
                .register(registry);

        TrackedConnectionRegistry devices = new TrackedConnectionRegistry(
                new RedisConnectionRegistry(async, keys, identity, settings.devices().deviceInfoTtl(),
                        settings.devices().hostile().deviceInfoTtlBeforeRecords()), pendingCalls);
        CommandStore commandStore = new RedisCommandStore(async, keys, identity::id, settings.commands());
        ReplyWaiter replies = new ReplyWaiter();
        commands = new CommandDispatcher(commandStore, sessions, settings.commands(), metrics, pendingCalls,
                new UnsolicitedMessages(settings.devices().hostile().maxDeviceMessagesPerMinute(),
                        settings.devices().hostile().maxDeviceMessageTextBytes()));
        RedisAdmission admission = new RedisAdmission(async, keys, settings.devices().admission());
        RevocationListener revocations = new RevocationListener(sessions, admission);
        events = new InstanceEvents(redis.connectPubSub(), keys, settings.redis().commandTimeout())
                .on(InstanceEvent.TAKEOVER, new TakeoverListener(sessions, devices, identity::id, metrics))
                .on(InstanceEvent.COMMAND, commands::wake)
                .on(InstanceEvent.REPLY, replies::finished)
                .on(InstanceEvent.DENY, revocations)
                .on(InstanceEvent.REVOKE, revocations)
                // The marker is the order; the message only saves waiting for the next renewal.
                .on(InstanceEvent.SHUTDOWN, requested -> heartbeat.renewSoon());
        events.listen(id);
        TelemetryWriter writes;
        RecordValidity validity = new RecordValidity(settings.telemetry().clockSkewFuture(), RecordValidityMetrics.bind(registry));
        TelemetryWriteSettings writeSettings = new TelemetryWriteSettings(
                settings.telemetry().dedupWindow(), settings.telemetry().dedupPerDevice(), settings.devices().deviceInfoTtl());
        if (settings.telemetry().ackReplicas() > 0) {
            // WAIT blocks its connection, so these writes and their WAITs get one of their own.
            ConnectionEpoch epoch = new ConnectionEpoch();
            redis.client().addListener(epoch);
            durableConnection = redis.client().connect();
            epoch.watch(durableConnection);
            RedisAsyncCommands<String, String> durable = durableConnection.async();
            replicaAcks = new ReplicaAckBatcher(new RedisTelemetryWriter(durable, keys,
                    new TelemetryEntryMapper(identity::id, validity), writeSettings), durable::waitForReplication, epoch,
                    settings.telemetry().ackReplicas(), settings.telemetry().ackReplicasTimeout(), metrics::replicaShortfall);
            writes = replicaAcks;
        } else {
            // A Sentinel URL has no fixed primary for a connection of our own: the script alone then.
            telemetryLanes = settings.telemetry().transactionWrites()
                    ? RedisEndpoint.of(redisUrl).map(endpoint -> new TelemetryLanes(endpoint,
                            Transports.socketChannel(), settings.redis().commandTimeout())).orElse(null)
                    : null;
            RedisTelemetryWriter writer = new RedisTelemetryWriter(async, keys,
                    new TelemetryEntryMapper(identity::id, validity), writeSettings, telemetryLanes);
            TelemetryWriteMetrics.bind(registry, writer, telemetryLanes);
            writes = writer;
        }
        // Each TCP connection has at most one packet in the writer (FrameSequencer), UDP at most max-udp-in-flight.
        backpressure = new TelemetryBackpressure(writes, settings.telemetry().retention(),
                settings.devices().maxConnections() + settings.devices().maxUdpInFlight(),
                DeviceStreamShares.of(settings.telemetry().retention(), settings.devices().hostile().deviceStreamShare()),
                settings.devices().hostile().maxHeldBytes());
        writes = backpressure;
        streamRetention = new StreamRetention(async, keys, settings.telemetry().retention(), backpressure, metrics,
                settings.redis().commandTimeout());
        streamHealth = new StreamHealth(streamRetention::last, streamRetention::lastSuccessAt, settings.telemetry().retention(),
                backpressure);
        StreamMetrics.bind(registry, streamRetention, backpressure);
        FrameDeadLetters deadLetters = new RateLimitedDeadLetters(new RedisFrameDeadLetters(async, keys, identity::id,
                settings.telemetry().deadLetterMaxEntries(), settings.telemetry().deadLetterMaxFrameBytes(),
                settings.devices().hostile().deadLetterUnauthenticatedBytes(), metrics),
                settings.devices().hostile().deadLettersPerSecond(), settings.devices().hostile().deadLettersPerAddressPerMinute(), metrics);
        // In allow-list mode every IMEI that gets in was vetted: nothing new to limit.
        NewImeiLimit newImeis = settings.devices().admission() == AdmissionMode.OPEN
                ? new NewImeiLimit(settings.devices().hostile().maxNewImeisPerAddressPerMinute(), NewImeiLimit.knownIn(async, keys))
                : NewImeiLimit.OFF;
        RefusalLog refusals = new RefusalLog(settings.devices().refusalLogInterval());
        // Logged-in connections are tracked whatever their number; datagrams of devices new past this are dropped.
        deviceRates = new DeviceRateLimits(settings.devices().hostile().deviceRates(), settings.devices().maxConnections() + 100_000);
        PipelineServices services = new PipelineServices(settings, metrics, writes, deadLetters, sessions, devices,
                pendingCalls, commands, admission, newImeis, refusals, deviceRates);

        apiToken = settings.http().apiToken().orElseGet(() -> {
            String token = BearerTokenAuth.randomToken();
            LOG.warn("API_TOKEN is not set: generated the operator API token {} (shown once)", token);
            return token;
        });
        CommandResource commandResource = new CommandResource(new CommandService(commandStore, replies),
                settings.commands(), metrics);
        queueHealth = new QueueHealthMonitor(async, keys, settings.ops(), settings.redis().commandTimeout(), registry,
                streamHealth);
        revocationSweeper = new RevocationSweeper(sessions, async, keys, settings.devices().admission(),
                settings.devices().denySweepInterval(), settings.redis().commandTimeout());
        purger = new Purger(async, keys, settings.ops(), settings.commands(), metrics, settings.redis().commandTimeout());
        OperatorApi api = OperatorApi.of(new InstanceResource(directory, new RemoteShutdown(async, keys)),
                new DeviceResource(new DeviceLookup(async, keys), commandResource), commandResource,
                new OpsResource(queueHealth, purger, new DeadLetterQueries(async, keys)),
                new AdmissionResource(new AdmissionLists(async, keys), settings.devices().admission()), new SpecResource());
        JanitorMetrics janitorMetrics = new JanitorMetrics(registry);
        DeadInstanceCommands deadInstanceCommands = new DeadInstanceCommands(async, keys, new CommandHandBack(async,
                keys, settings.commands().deadLetterMaxEntries(), settings.commands().retention()),
                settings.janitor().scanCount(), settings.redis().commandTimeout());
        janitor = new JanitorTicker(new RegistryJanitor(async, keys, settings.janitor(), janitorMetrics,
                settings.redis().commandTimeout(), deadInstanceCommands), settings.janitor(), janitorMetrics);
        UdpPacketHandler udpHandler = new UdpPacketHandler(new UdpPacketDecoder(settings.devices().decodeLimits()),
                settings.devices().imeiLuhnCheck(), writes, deadLetters, metrics, settings.devices().maxUdpInFlight(), pendingCalls,
                udpAdmission(settings, admission, newImeis, async, keys), udpWriteBudget(settings), refusals,
                deviceRates);
        // Load every script before the first device can connect, so no call has to fall back to
        // EVAL (which would go after calls issued meanwhile).
        LuaScript.loadAll(redis.connection().sync(), RegistryScripts.all(), CommandScripts.all(), IngestScripts.all(),
                StreamScripts.all(), AdmissionScripts.all());

        boss = Transports.group(1, new DefaultThreadFactory("accept", false));
        workers = Transports.group(settings.listeners().ioThreadCount(), new DefaultThreadFactory("io", false));
        if (telemetryLanes != null) {
            telemetryLanes.serve(workers);
        }
        MetricsBootstrap.eventLoops(registry, workers);
        if (deviceRates.enabled()) {
            // Cheap (the devices that used their budget lately), off the device loops.
            boss.scheduleAtFixedRate(deviceRates::sweep, 1, 1, TimeUnit.MINUTES);
        }
        TcpChannelInitializer plain = new TcpChannelInitializer(services);
        int acceptsPerSecond = settings.devices().hostile().maxAcceptsPerSecond();
        int acceptsPerNetwork = settings.devices().hostile().maxAcceptsPerNetworkPerSecond();
        AcceptRateLimit acceptLimit = acceptsPerSecond > 0 || acceptsPerNetwork > 0
                ? new AcceptRateLimit(acceptsPerSecond, acceptsPerNetwork, metrics::acceptPaused, remote -> {
                    metrics.acceptRefusedForNetwork();
                    refusals.refused("accept/" + RefusalLog.networkKey(remote), "connections closed at accept "
                            + "remote={} network={}: more than {} new connections per second from its network "
                            + "(MAX_ACCEPTS_PER_NETWORK_PER_SECOND)", remote, RefusalLog.networkKey(remote),
                            acceptsPerNetwork);
                })
                : null;
        tcpAddress = tcp.bind(boss, workers, settings.listeners().bindAddress(), settings.listeners().tcpPort(), plain, acceptLimit);
        if (settings.listeners().tls().enabled()) {
            tlsContext = new ReloadingSslContext(settings.listeners().tls());
            // The same caps across both ports: a device address counts once whichever it uses.
            tlsAddress = tlsTcp.bind(boss, workers, settings.listeners().bindAddress(), settings.listeners().tls().port(),
                    plain.withTls(tlsContext, settings.listeners().tls().handshakeTimeout().toMillis()), acceptLimit);
        }
        if (settings.listeners().udpPort() > 0) {
            udpAddress = udp.bind(workers, settings.listeners().bindAddress(), settings.listeners().udpPort(),
                    settings.devices().decodeLimits().maxFrameBytes(), udpHandler);
        }
        // One thread of its own: HTTP work (a scrape, a slow client) never delays a device's ACK.
        httpGroup = Transports.group(1, new DefaultThreadFactory("http", false));
        HttpSettings httpSettings = settings.http();
        CachedScrape scrape = new CachedScrape(registry::scrape, Duration.ofSeconds(1));
        BearerTokenAuth auth = new BearerTokenAuth(apiToken, httpSettings.readToken());
        // Longer than the longest wait_ms, so a waiting request is answered.
        Duration readTimeout = settings.commands().maxWait().plusSeconds(30);
        httpAddress = http.bind(httpGroup, httpSettings.bindAddress(), settings.http().port(), OperatorHttpServer.api(
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
        heartbeat.start(new InstanceRecovery(redis.connection().sync(), keys, settings.instance().idPrefix(), heartbeat,
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
        boolean tcpKnown = settings.devices().admission() == AdmissionMode.OPEN
                && settings.devices().hostile().udpAdmission() == UdpAdmission.TCP_KNOWN;
        return new UdpAdmissionGate(admission,
                tcpKnown ? new TcpKnownImeis(TcpKnownImeis.deviceInfoIn(async, keys)) : null, newImeis);
    }

    /** Records from UDP per second, all sources together; a second's worth may come at once. */
    private static IntPredicate udpWriteBudget(ServerSettings settings) {
        int perSecond = settings.devices().hostile().maxUdpRecordsPerSecond();
        if (perSecond <= 0) {
            return records -> true;
        }
        TokenBucket budget = new TokenBucket(perSecond, Duration.ofSeconds(1));
        return budget::tryTake;
    }

    private String startEmbeddedRedis() {
        embeddedRedis = DevelopmentRedis.start(settings.redis().embeddedPort());
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
            return Readiness.notReady("replicas do not confirm writes (ACK_REPLICAS=" + settings.telemetry().ackReplicas()
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
        long deadline = System.nanoTime() + settings.shutdown().grace().toNanos();
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
                    pendingCalls.pending(), settings.shutdown().grace());
        }
        udp.close();
        // Closing and releasing always get a moment, even when the writes used up the grace.
        // Within the grace: the drain window never pushes the stop past it.
        Duration window = min(settings.shutdown().drainWindow(), left(deadline));
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
