package org.fleetpipe.teltonika.server.parts;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.Optional;
import org.fleetpipe.teltonika.redis.RedisConnector;
import org.fleetpipe.teltonika.redis.RedisEndpoint;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.health.StreamHealth;
import org.fleetpipe.teltonika.server.ingest.ConnectionEpoch;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.server.ingest.RateLimitedDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RecordValidity;
import org.fleetpipe.teltonika.server.ingest.RecordValidityMetrics;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.ReplicaAckBatcher;
import org.fleetpipe.teltonika.server.ingest.ShardReplicaAcks;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryLanes;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteMetrics;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteSettings;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.UnstoredDeadLetters;
import org.fleetpipe.teltonika.server.stream.StreamMetrics;
import org.fleetpipe.teltonika.server.stream.StreamRetention;
import org.fleetpipe.teltonika.server.stream.StreamShares;
import org.fleetpipe.teltonika.server.stream.TelemetryBackpressure;
import org.fleetpipe.teltonika.server.tcp.Transports;

/**
 * The path of records into Redis: the writer (the script, MULTI lanes, or writes confirmed by
 * replicas), back-pressure in front of it, the stream's retention and health, and the frame dead letters.
 */
public final class TelemetryPart implements Part {

    private final Shared shared;
    private final RedisPart redis;
    private final InstancePart instance;
    private final ThreadsPart threads;
    private StatefulRedisConnection<String, String> durableConnection;
    private TelemetryLanes lanes;
    private ReplicaAckBatcher replicaAcks;
    private ShardReplicaAcks shardAcks;
    private TelemetryBackpressure backpressure;
    private StreamRetention retention;
    private StreamHealth health;
    private TelemetryWriter writer;
    private FrameDeadLetters deadLetters;

    public TelemetryPart(Shared shared, RedisPart redis, InstancePart instance, ThreadsPart threads) {
        this.shared = shared;
        this.redis = redis;
        this.instance = instance;
        this.threads = threads;
    }

    @Override
    public void start() {
        ServerSettings settings = shared.settings();
        IngestKeys keys = redis.ingestKeys();
        RedisClusterAsyncCommands<String, String> async = redis.async();
        // Each TCP connection has at most one packet in the writer (FrameSequencer), UDP at most max-udp-in-flight.
        backpressure = new TelemetryBackpressure(storeWriter(settings, keys, async), settings.telemetry().retention(),
                settings.devices().maxConnections() + settings.devices().maxUdpInFlight(),
                StreamShares.of(settings.telemetry().retention(), settings.devices().hostile().fairShareFrom()),
                settings.devices().hostile().maxHeldBytes(), keys.partitions(), imei -> keys.partitionOf(imei.value()));
        writer = backpressure;
        retention = new StreamRetention(async, keys, settings.telemetry().retention(), backpressure, shared.metrics(),
                settings.redis().commandTimeout(), threads.jobs());
        health = new StreamHealth(retention::last, retention::lastSuccessAt, settings.telemetry().retention(),
                backpressure);
        StreamMetrics.bind(shared.registry(), retention, backpressure, keys.partitions());
        // DLQ_ENABLED=false: refused frames are counted and logged, never stored (failed commands always are).
        deadLetters = !settings.ops().deadLettersEnabled() ? new UnstoredDeadLetters(shared.metrics())
                : new RateLimitedDeadLetters(new RedisFrameDeadLetters(async, keys.keys(), instance.identity()::id,
                settings.telemetry().deadLetterMaxEntries(), settings.telemetry().deadLetterMaxFrameBytes(),
                settings.devices().hostile().deadLetterUnauthenticatedBytes(), shared.metrics()),
                settings.devices().hostile().deadLettersPerSecond(),
                settings.devices().hostile().deadLettersPerAddressPerMinute(), shared.metrics());
        retention.start();
    }

    /** The writer that stores: with ACK_REPLICAS, confirmed by replicas; else the script or the MULTI lanes. */
    private TelemetryWriter storeWriter(ServerSettings settings, IngestKeys keys,
                                        RedisClusterAsyncCommands<String, String> async) {
        TelemetryWriteSettings writeSettings = new TelemetryWriteSettings(settings.telemetry().dedupWindow(),
                settings.telemetry().dedupPerDevice(), settings.devices().deviceInfoTtl(),
                settings.telemetry().blockLinger());
        TelemetryEntryMapper mapper = new TelemetryEntryMapper(instance.identity()::id,
                new RecordValidity(settings.telemetry().clockSkewFuture(), RecordValidityMetrics.bind(shared.registry())));
        if (settings.telemetry().ackReplicas() > 0 && redis.connector().isCluster()) {
            // Per node: the WAIT must run on the connection that wrote, to the shard's primary.
            RedisConnector connector = redis.connector();
            shardAcks = new ShardReplicaAcks(keys, new ShardReplicaAcks.Topology() {
                @Override
                public Optional<RedisURI> primaryFor(int slot) {
                    return connector.primaryFor(slot);
                }

                @Override
                public void refresh() {
                    connector.refreshTopology();
                }
            }, connector.nodeClient(), (connection, epoch) -> new ReplicaAckBatcher(
                    new RedisTelemetryWriter(connection.async(), async, keys, mapper, writeSettings, null, true),
                    connection.async()::waitForReplication, epoch, settings.telemetry().ackReplicas(),
                    settings.telemetry().ackReplicasTimeout(), shared.metrics()::replicaShortfall));
            shardAcks.openAll(settings.redis().commandTimeout());
            return shardAcks;
        }
        if (settings.telemetry().ackReplicas() > 0) {
            // WAIT blocks its connection, so these writes and their WAITs get one of their own.
            ConnectionEpoch epoch = new ConnectionEpoch();
            redis.connector().client().addListener(epoch);
            durableConnection = redis.connector().client().connect();
            epoch.watch(durableConnection);
            RedisClusterAsyncCommands<String, String> durable = durableConnection.async();
            replicaAcks = new ReplicaAckBatcher(new RedisTelemetryWriter(durable, keys, mapper, writeSettings),
                    durable::waitForReplication, epoch, settings.telemetry().ackReplicas(),
                    settings.telemetry().ackReplicasTimeout(), shared.metrics()::replicaShortfall);
            return replicaAcks;
        }
        // A Sentinel URL has no fixed primary for a connection of our own, and a cluster's MULTI
        // block would reach one node only: the script alone then.
        boolean cluster = redis.connector().isCluster();
        lanes = settings.telemetry().transactionWrites() && !cluster
                ? RedisEndpoint.of(redis.url()).map(endpoint -> new TelemetryLanes(endpoint,
                        Transports.socketChannel(), settings.redis().commandTimeout())).orElse(null)
                : null;
        RedisTelemetryWriter stores = new RedisTelemetryWriter(async, keys, mapper, writeSettings, lanes, cluster);
        TelemetryWriteMetrics.bind(shared.registry(), stores, lanes);
        if (lanes != null) {
            lanes.serve(threads.workers());
        }
        return stores;
    }

    /** Where packets go: back-pressure in front of the writer that stores. */
    TelemetryWriter writer() {
        return writer;
    }

    FrameDeadLetters deadLetters() {
        return deadLetters;
    }

    StreamHealth health() {
        return health;
    }

    /** Whether replicas failed to confirm writes lately (ACK_REPLICAS): packets then get no ACK. */
    boolean replicasBehind() {
        return (replicaAcks != null && replicaAcks.behindWithin(Duration.ofSeconds(5)))
                || (shardAcks != null && shardAcks.behindWithin(Duration.ofSeconds(5)));
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) {
        switch (stage) {
            case STOP_JOBS -> {
                if (retention != null) {
                    retention.close();
                }
            }
            case FAIL_HELD -> {
                if (backpressure != null) {
                    // Held packets would never be written now: their devices resend to another replica.
                    backpressure.close();
                }
            }
            case CLOSE_REDIS -> {
                if (durableConnection != null) {
                    durableConnection.close();
                }
                if (shardAcks != null) {
                    shardAcks.close();
                }
                if (lanes != null) {
                    lanes.close();
                }
            }
            default -> {
            }
        }
    }
}
