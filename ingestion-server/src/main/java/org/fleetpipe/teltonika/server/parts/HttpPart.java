package org.fleetpipe.teltonika.server.parts;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.registry.RemoteShutdown;
import org.fleetpipe.teltonika.server.api.AdmissionResource;
import org.fleetpipe.teltonika.server.api.CaptureResource;
import org.fleetpipe.teltonika.server.api.CommandResource;
import org.fleetpipe.teltonika.server.api.DeviceModelResource;
import org.fleetpipe.teltonika.server.api.DeviceResource;
import org.fleetpipe.teltonika.server.api.InstanceResource;
import org.fleetpipe.teltonika.server.api.OperatorApi;
import org.fleetpipe.teltonika.server.api.OpsResource;
import org.fleetpipe.teltonika.server.api.SpecResource;
import org.fleetpipe.teltonika.server.command.DeviceCommandList;
import org.fleetpipe.teltonika.server.config.HttpSettings;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.devices.DeviceModels;
import org.fleetpipe.teltonika.server.http.AnswerBudget;
import org.fleetpipe.teltonika.server.http.BearerTokenAuth;
import org.fleetpipe.teltonika.server.http.CachedScrape;
import org.fleetpipe.teltonika.server.http.HttpConnections;
import org.fleetpipe.teltonika.server.http.OperatorHttpServer;
import org.fleetpipe.teltonika.server.http.RequestDeadline;
import org.fleetpipe.teltonika.server.session.DeviceLookup;
import org.fleetpipe.teltonika.server.tcp.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The operator API and the probes, each on a listener and a thread of its own. */
public final class HttpPart implements Part {

    private static final Logger LOG = LoggerFactory.getLogger(HttpPart.class);

    private final Shared shared;
    private final RedisPart redis;
    private final InstancePart instance;
    private final CommandPart commands;
    private final AdmissionPart admission;
    private final OpsPart ops;
    private final CapturePart captures;
    private final ServerReadiness readiness;
    private final OperatorHttpServer api = new OperatorHttpServer();
    private final OperatorHttpServer health = new OperatorHttpServer();
    private EventLoopGroup apiThread;
    private EventLoopGroup healthThread;
    private String apiToken;
    private InetSocketAddress apiAddress;
    private InetSocketAddress healthAddress;

    public HttpPart(Shared shared, RedisPart redis, InstancePart instance, CommandPart commands, AdmissionPart admission,
             OpsPart ops, CapturePart captures, ServerReadiness readiness) {
        this.shared = shared;
        this.redis = redis;
        this.instance = instance;
        this.commands = commands;
        this.admission = admission;
        this.ops = ops;
        this.captures = captures;
        this.readiness = readiness;
    }

    @Override
    public void start() throws InterruptedException {
        ServerSettings settings = shared.settings();
        HttpSettings http = settings.http();
        apiToken = http.apiToken().orElseGet(() -> {
            String token = BearerTokenAuth.randomToken();
            LOG.warn("API_TOKEN is not set: generated the operator API token {} (shown once)", token);
            return token;
        });
        AnswerBudget answers = new AnswerBudget(http.answerBytesMax(), shared.registry());
        CommandResource commandResource = new CommandResource(commands.service(),
                new DeviceCommandList(redis.apiAsync(), redis.keys()), settings.commands(), shared.metrics());
        OperatorApi routes = OperatorApi.of(
                new InstanceResource(instance.directory(), new RemoteShutdown(redis.async(), redis.keys())),
                new DeviceResource(new DeviceLookup(redis.apiAsync(), redis.keys()), commandResource,
                        new CaptureResource(captures.service(), answers), new DeviceModelResource(
                                new DeviceModels(redis.apiAsync(), redis.keys(), IoDictionary.load()))), commandResource,
                new OpsResource(ops.queueHealth(), ops.purger(), ops.deadLetters()),
                new AdmissionResource(admission.lists(), settings.devices().admission()), new SpecResource());
        CachedScrape scrape = new CachedScrape(shared.registry()::scrape, Duration.ofSeconds(1));
        BearerTokenAuth auth = new BearerTokenAuth(apiToken, http.readToken());
        // Longer than the longest wait_ms, so a waiting request is answered.
        Duration readTimeout = settings.commands().maxWait().plusSeconds(30);
        // One thread of its own: HTTP work (a scrape, a slow client) never delays a device's ACK.
        apiThread = Transports.group(1, new DefaultThreadFactory("http", false));
        apiAddress = api.bind(apiThread, http.bindAddress(), http.port(), OperatorHttpServer.api(
                new HttpConnections(http.maxConnections(), http.maxConnectionsPerAddress(), shared.registry()),
                readiness::check, scrape, auth, routes, readTimeout,
                RequestDeadline.api(http.requestTimeout(), shared.registry())));
        // And the probes a listener and a thread of their own: API clients filling the API port's
        // cap, or keeping its thread busy, never make Kubernetes restart the pod.
        healthThread = Transports.group(1, new DefaultThreadFactory("health", false));
        healthAddress = health.bind(healthThread, http.bindAddress(), http.healthPort(),
                OperatorHttpServer.health(HttpConnections.health(http.healthMaxConnections(),
                                http.healthMaxConnectionsPerAddress(), shared.registry()),
                        readiness::check, scrape, readTimeout,
                        RequestDeadline.health(http.requestTimeout(), shared.registry())));
        LOG.info("operator API tokens: operator token={} read-only token={} (fingerprints: the first 8 hex digits"
                + " of the token's SHA-256, as the 'api change' log lines name them)", auth.operatorFingerprint(),
                auth.readFingerprint().orElse("none"));
    }

    public String apiToken() {
        return apiToken;
    }

    public InetSocketAddress apiAddress() {
        return apiAddress;
    }

    public InetSocketAddress healthAddress() {
        return healthAddress;
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) throws InterruptedException {
        if (stage == StopStage.CLOSE_HTTP) {
            api.close();
            health.close();
        } else if (stage == StopStage.CLOSE_THREADS) {
            ThreadsPart.shutDown(apiThread);
            ThreadsPart.shutDown(healthThread);
        }
    }
}
