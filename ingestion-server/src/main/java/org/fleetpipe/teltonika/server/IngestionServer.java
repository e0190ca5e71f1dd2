package org.fleetpipe.teltonika.server;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.registry.InstanceIdAllocator;
import org.fleetpipe.teltonika.registry.RedisConnector;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.local.LocalRedisServer;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.http.OperatorHttpServer;
import org.fleetpipe.teltonika.server.http.Readiness;
import org.fleetpipe.teltonika.server.ingest.InFlightWrites;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.server.tcp.PipelineServices;
import org.fleetpipe.teltonika.server.tcp.TcpChannelInitializer;
import org.fleetpipe.teltonika.server.tcp.TcpServer;
import org.fleetpipe.teltonika.server.tcp.Transports;
import org.fleetpipe.teltonika.server.udp.UdpPacketHandler;
import org.fleetpipe.teltonika.server.udp.UdpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds every service from the settings, starts the listeners, and stops
 * them in order. Tests run it in-process on port 0.
 */
public final class IngestionServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IngestionServer.class);

    private final ServerSettings settings;
    private LocalRedisServer embeddedRedis;
    private RedisConnector redis;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private final TcpServer tcp = new TcpServer();
    private final UdpServer udp = new UdpServer();
    private final OperatorHttpServer http = new OperatorHttpServer();
    private InFlightWrites writes;
    private IngestionMetrics metrics;
    private SessionTable sessions;
    private String instanceId;
    private String redisUrl;
    private InetSocketAddress tcpAddress;
    private InetSocketAddress udpAddress;
    private InetSocketAddress httpAddress;
    private volatile boolean stopping;

    public IngestionServer(ServerSettings settings) {
        this.settings = settings;
    }

    /** Starts everything; on failure, stops what had started and rethrows. */
    public IngestionServer start() throws InterruptedException {
        try {
            startServices();
            return this;
        } catch (RuntimeException | InterruptedException e) {
            close();
            throw e;
        }
    }

    private void startServices() throws InterruptedException {
        redisUrl = settings.redisUrl().orElseGet(this::startEmbeddedRedis);
        redis = RedisConnector.connect(redisUrl, settings.redisCommandTimeout());
        RedisKeys keys = new RedisKeys(settings.redisNamespace());
        instanceId = InstanceIdAllocator.allocate(redis.connection().sync(), keys, settings.instanceIdPrefix());
        RedisAsyncCommands<String, String> async = redis.connection().async();

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        metrics = new IngestionMetrics(registry);
        sessions = new SessionTable();
        writes = new InFlightWrites(new RedisTelemetryWriter(async, keys, settings.telemetryStreamMaxLen(),
                new TelemetryEntryMapper(instanceId)));
        RedisFrameDeadLetters deadLetters = new RedisFrameDeadLetters(async, keys, instanceId,
                settings.deadLetterMaxEntries(), settings.deadLetterMaxFrameBytes(), metrics);
        PipelineServices services = new PipelineServices(settings, metrics, writes, deadLetters, sessions);

        boss = Transports.group(1, new DefaultThreadFactory("accept", false));
        workers = Transports.group(0, new DefaultThreadFactory("io", false));
        tcpAddress = tcp.bind(boss, workers, settings.bindAddress(), settings.tcpPort(),
                new TcpChannelInitializer(services));
        if (settings.udpPort() > 0) {
            udpAddress = udp.bind(workers, settings.bindAddress(), settings.udpPort(),
                    new UdpPacketHandler(new UdpPacketDecoder(settings.decodeLimits()), settings.imeiLuhnCheck(),
                            writes, deadLetters, metrics, settings.maxUdpInFlight()));
        }
        httpAddress = http.bind(boss, workers, settings.bindAddress(), settings.httpPort(), this::readiness,
                registry::scrape);
        LOG.info("ready: instance={} tcp={} udp={} http={} redis={} transport={}", instanceId, tcpAddress,
                udpAddress == null ? "off" : udpAddress, httpAddress, redactedRedisUrl(), Transports.name());
    }

    private String startEmbeddedRedis() {
        LocalRedisServer.Builder builder = LocalRedisServer.builder();
        int wanted = settings.embeddedRedisPort();
        if (wanted > 0 && portFree(wanted)) {
            builder.port(wanted);
        }
        embeddedRedis = builder.build().start();
        LOG.warn("REDIS_URL is not set: started an embedded Redis for development at {} ({}). "
                + "Set REDIS_URL in production.", embeddedRedis.uri(), embeddedRedis.binary().description());
        return embeddedRedis.uri();
    }

    private static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private CompletionStage<Readiness> readiness() {
        if (stopping) {
            return CompletableFuture.completedFuture(Readiness.notReady("stopping"));
        }
        return redis.connection().async().ping().toCompletableFuture()
                .orTimeout(2, TimeUnit.SECONDS)
                .handle((pong, error) -> error == null ? Readiness.ok()
                        : Readiness.notReady("redis does not answer: " + error.getClass().getSimpleName()));
    }

    private String redactedRedisUrl() {
        return redisUrl.replaceAll("//[^@/]*@", "//***@");
    }

    /** Stops accepting, lets in-flight writes finish, closes devices, then Redis and the event loops. */
    @Override
    public void close() throws InterruptedException {
        stopping = true;
        Duration grace = settings.shutdownGrace();
        tcp.stopAccepting();
        udp.close();
        if (writes != null && !writes.awaitIdle(grace)) {
            LOG.warn("{} telemetry writes still under way after {}; their devices get no ACK and will resend",
                    writes.inFlight(), grace);
        }
        tcp.closeAll(grace);
        http.close();
        if (redis != null) {
            redis.close();
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
        if (embeddedRedis != null) {
            embeddedRedis.close();
        }
        LOG.info("stopped: instance={}", instanceId);
    }

    public InetSocketAddress tcpAddress() {
        return tcpAddress;
    }

    public InetSocketAddress udpAddress() {
        return udpAddress;
    }

    public InetSocketAddress httpAddress() {
        return httpAddress;
    }

    public String instanceId() {
        return instanceId;
    }

    public IngestionMetrics metrics() {
        return metrics;
    }

    public SessionTable sessions() {
        return sessions;
    }
}
