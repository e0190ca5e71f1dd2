package org.fleetpipe.teltonika.bridge;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.bridge.delivery.Backoff;
import org.fleetpipe.teltonika.bridge.delivery.DeviceLanes;
import org.fleetpipe.teltonika.bridge.delivery.HeldEntries;
import org.fleetpipe.teltonika.bridge.delivery.HeldPartitions;
import org.fleetpipe.teltonika.bridge.delivery.LeaseKeeper;
import org.fleetpipe.teltonika.bridge.delivery.RecordMaker;
import org.fleetpipe.teltonika.bridge.delivery.StreamPump;
import org.fleetpipe.teltonika.bridge.devices.RedisModelLookup;
import org.fleetpipe.teltonika.bridge.ops.BridgeHttpServer;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.stream.BridgeDeadLetters;
import org.fleetpipe.teltonika.bridge.stream.DeadLetterScripts;
import org.fleetpipe.teltonika.bridge.stream.EntryAcks;
import org.fleetpipe.teltonika.bridge.stream.GroupLag;
import org.fleetpipe.teltonika.bridge.stream.GroupReader;
import org.fleetpipe.teltonika.bridge.stream.GroupStart;
import org.fleetpipe.teltonika.bridge.stream.LeaseScripts;
import org.fleetpipe.teltonika.bridge.stream.PartitionLeases;
import org.fleetpipe.teltonika.bridge.stream.SinkBinding;
import org.fleetpipe.teltonika.bridge.stream.StreamKeys;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import org.fleetpipe.teltonika.redis.LuaScript;
import org.fleetpipe.teltonika.redis.RedisConnector;
import org.fleetpipe.teltonika.redis.RedisEndpoint;
import org.fleetpipe.teltonika.redis.RespSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bridge replica: holds leases on its share of the partitions, reads their streams in the group
 * (own connection), delivers on device lanes, acknowledges and touches on a second connection, and
 * serves its metrics and health.
 */
public final class Bridge implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Bridge.class);
    /** Longer than the pump's 1 s XREADGROUP block, which holds the reading connection. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final BridgeSettings settings;
    private final Sink sink;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScheduledExecutorService chores = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "bridge-chores");
        thread.setDaemon(true);
        return thread;
    });
    private RedisConnector redis;
    private RedisConnector.Dedicated readConnection;
    private RespSocket readSocket;
    private DeviceLanes lanes;
    private StreamPump pump;
    private Thread pumpThread;
    private BridgeHttpServer http;
    private BridgeMetrics metrics;
    private EntryAcks acks;
    private LeaseKeeper leaseKeeper;
    private boolean closed;
    /** Renews the leases on a thread of its own: a slow lag measurement must not make one lapse. */
    private final ScheduledExecutorService leaseThread = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "bridge-leases");
        thread.setDaemon(true);
        return thread;
    });

    public Bridge(BridgeSettings settings, Sink sink) {
        this.settings = settings;
        this.sink = sink;
    }

    /** Connects, creates or moves the group, and starts reading. */
    public void start() throws IOException {
        // Before Redis is touched: a sink the bridge can never write leaves the group as it was.
        sink.prepare();
        redis = RedisConnector.connect(settings.redisUrl(), COMMAND_TIMEOUT);
        StreamKeys keys = StreamKeys.read(redis.sync(), settings.namespace(), settings.group(),
                settings.partitions());
        // Before the group is touched: a group refused for another sink stays as it was.
        String binding = SinkBinding.apply(redis.sync(), keys, settings.sinkTarget(), settings.rebind());
        LOG.info("bridge starting sink={} consumer={} streams={} {} {}", sink.name(), settings.consumer(),
                keys.partitions() == 1 ? keys.telemetryStreams().get(0) : keys.partitions() + " partitions",
                GroupStart.apply(redis.sync(), keys, settings.from()), binding);
        HeldEntries held = new HeldEntries();
        metrics = new BridgeMetrics(registry, sink.name(), settings.group(), held::size);
        Backoff backoff = new Backoff(Duration.ofMillis(100), settings.maxBackoff());
        acks = new EntryAcks(redis.sync(), keys, settings.consumer());
        LuaScript.loadAll(redis.sync(), LeaseScripts.ALL, DeadLetterScripts.ALL);
        HeldPartitions partitions = new HeldPartitions();
        PartitionLeases leases = new PartitionLeases(redis.sync(), redis.async(), COMMAND_TIMEOUT, keys,
                settings.consumer(), settings.leaseTtl());
        leaseKeeper = new LeaseKeeper(leases, partitions, keys.layout(), settings.consumer(), metrics);
        RecordMaker maker = new RecordMaker(new RecordPayload(IoDictionary.load()),
                new DeviceModelCache(new RedisModelLookup(redis.sync(), keys.deviceModels())));
        lanes = new DeviceLanes(settings.lanes(), settings.batch(), sink, maker, acks,
                new BridgeDeadLetters(redis.async(), COMMAND_TIMEOUT, keys, settings.deadLetterMax()), backoff, held,
                metrics, partitions::deliverable);
        partitions.onLost(lanes::drop);
        pump = new StreamPump(groupReader(keys), lanes, partitions,
                leases, held, acks, settings.batch(), settings.claimIdle(), claimEvery(settings.claimIdle()), backoff,
                metrics);
        long touchEvery = Math.max(100, settings.claimIdle().toMillis() / 3);
        chores.scheduleWithFixedDelay(() -> touch(acks, held, partitions), touchEvery, touchEvery,
                TimeUnit.MILLISECONDS);
        long leaseEvery = leaseKeeper.every().toMillis();
        leaseThread.scheduleWithFixedDelay(leaseKeeper::round, 0, leaseEvery, TimeUnit.MILLISECONDS);
        GroupLag lag = new GroupLag(redis.sync(), keys);
        chores.scheduleWithFixedDelay(() -> measureLag(lag), 0, 5, TimeUnit.SECONDS);
        lanes.start();
        pumpThread = new Thread(pump, "bridge-pump");
        pumpThread.start();
        if (settings.httpPort() >= 0) {
            http = new BridgeHttpServer(settings.httpHost(), settings.httpPort(), registry, this::readiness);
        }
        LOG.info("bridge started sink={} group={} lanes={} batch={} lease_ttl={} http_port={}", sink.name(),
                settings.group(), settings.lanes(), settings.batch(), settings.leaseTtl(),
                http == null ? -1 : http.port());
    }

    /**
     * The group's reads on a connection of their own, as XREADGROUP blocks it: on a standalone Redis
     * a socket whose replies the pump's thread reads itself, else (a cluster, Sentinel) Lettuce's.
     */
    private GroupReader groupReader(StreamKeys keys) {
        Optional<RedisEndpoint> endpoint = redis.isCluster() ? Optional.empty() : RedisEndpoint.of(settings.redisUrl());
        if (endpoint.isPresent()) {
            RespSocket socket = new RespSocket(endpoint.get(), COMMAND_TIMEOUT, "bridge-reads");
            readSocket = socket;
            return new GroupReader(socket::dispatch, redis.sync(), false, keys, settings.consumer());
        }
        readConnection = redis.dedicated();
        return new GroupReader(readConnection.sync()::dispatch, redis.sync(), redis.isCluster(), keys,
                settings.consumer());
    }

    /** Often enough that entries a stopping replica handed back move on within seconds. */
    static Duration claimEvery(Duration claimIdle) {
        Duration half = claimIdle.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(5)) < 0 ? half : Duration.ofSeconds(5);
    }

    /** Only entries of partitions still held: a lost one's may be another replica's now. */
    private void touch(EntryAcks acks, HeldEntries held, HeldPartitions partitions) {
        try {
            acks.touch(held.snapshot().stream().filter(entry -> partitions.deliverable(entry.stream())).toList());
        } catch (RuntimeException e) {
            metrics.redisError();
        }
    }

    private void measureLag(GroupLag lag) {
        try {
            long now = System.currentTimeMillis();
            GroupLag.Lag measured = lag.measure(now);
            metrics.lag(measured.entries(), measured.oldestAgeMillis());
        } catch (RuntimeException e) {
            metrics.redisError();
        }
    }

    private BridgeHttpServer.Readiness readiness() {
        if (!pump.isReading() || !leaseKeeper.isHealthy()) {
            return new BridgeHttpServer.Readiness(false, "not reading the stream (Redis unreachable?)");
        }
        // Not ready while nothing can be delivered: a rollout must not go on over a replica that
        // cannot deliver, and the probe says why. Restarting would not help: the entries wait.
        if (metrics.deadLettersFull()) {
            return new BridgeHttpServer.Readiness(false, "dead letters full (--dead-letter-max): holding, nothing"
                    + " acknowledged behind the record refused until dlq:bridge:" + settings.group() + " is drained");
        }
        long refusingSince = metrics.sinkRefusingSince();
        if (refusingSince != 0) {
            return new BridgeHttpServer.Readiness(false, "sink refusing the bridge since "
                    + java.time.Instant.ofEpochMilli(refusingSince) + " (credentials, permissions, address?), retrying");
        }
        long failingSince = metrics.sinkFailingSince();
        if (failingSince != 0) {
            return new BridgeHttpServer.Readiness(false, "sink failing since "
                    + java.time.Instant.ofEpochMilli(failingSince) + ", retrying");
        }
        return new BridgeHttpServer.Readiness(true, metrics.partitionsHeld() == 0
                ? "standby: holds no partition lease" : "delivering");
    }

    private void handBack() {
        if (acks == null) {
            return;
        }
        try {
            int handed = acks.handBack(settings.claimIdle().plusSeconds(1));
            if (handed > 0) {
                LOG.info("handed back entries={} read and not delivered: the other replicas take them over",
                        handed);
            }
        } catch (RuntimeException e) {
            LOG.warn("could not hand back the entries not delivered (they move on after {}): {}",
                    settings.claimIdle(), e.toString());
        }
    }

    /** The port of /metrics and /health, once started. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The lease keeper, once started: tests pause its renewals, as a long GC pause would. */
    LeaseKeeper leaseKeeper() {
        return leaseKeeper;
    }

    /**
     * Stops reading, lets the lanes finish what is in flight within the grace (the leases renewed
     * meanwhile), hands back the rest, then releases the leases, so another replica takes the
     * partitions over at once.
     */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        long started = System.nanoTime();
        if (pump != null) {
            pump.stop();
            pumpThread.join(5_000);
        }
        if (lanes != null) {
            lanes.stop(settings.shutdownGrace());
        }
        chores.shutdownNow();
        leaseThread.shutdownNow();
        leaseThread.awaitTermination(5, TimeUnit.SECONDS);
        handBack();
        if (leaseKeeper != null) {
            leaseKeeper.releaseAll();
        }
        sink.close();
        if (http != null) {
            http.close();
        }
        if (readConnection != null) {
            readConnection.close();
        }
        if (readSocket != null) {
            readSocket.close();
        }
        if (redis != null) {
            redis.close();
        }
        LOG.info("bridge stopped sink={} in_ms={}", sink.name(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
}
