package org.fleetpipe.teltonika.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Owns the Lettuce client and the one shared connection every component pipelines on: to one
 * Redis (or the primary Sentinel names), or with a {@link ClusterUrl redis-cluster://} URL to a
 * Redis Cluster, whose commands Lettuce routes by key. Commands issued while Redis is unreachable
 * fail at once (or, on a cluster, once the bounded request queue is full or the command timed
 * out) instead of queueing without bound: a device then gets no ACK and resends, which is the
 * only safe answer.
 */
public final class RedisConnector implements AutoCloseable {

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> async;
    private final RedisClusterCommands<String, String> sync;
    /** On a cluster: the first seed, whose login and TLS every node shares. */
    private final RedisURI seed;
    private final Duration commandTimeout;
    private final int requestQueueSize;
    private RedisClient nodeClient;

    private RedisConnector(ClientResources resources, RedisClient client,
                           StatefulRedisConnection<String, String> connection) {
        this.resources = resources;
        this.client = client;
        this.connection = connection;
        this.async = connection.async();
        this.sync = connection.sync();
        this.seed = null;
        this.commandTimeout = null;
        this.requestQueueSize = 0;
    }

    private RedisConnector(ClientResources resources, RedisClusterClient client,
                           StatefulRedisClusterConnection<String, String> connection, RedisURI seed,
                           Duration commandTimeout, int requestQueueSize) {
        this.resources = resources;
        this.client = client;
        this.connection = connection;
        this.async = connection.async();
        this.sync = connection.sync();
        this.seed = seed;
        this.commandTimeout = commandTimeout;
        this.requestQueueSize = requestQueueSize;
    }

    /** Connects, failing if Redis does not answer within {@code commandTimeout}. */
    public static RedisConnector connect(String url, Duration commandTimeout) {
        return connect(url, commandTimeout, CommandLatencyRecorder.disabled());
    }

    /** As {@link #connect(String, Duration)}, recording every command's latency with {@code latency}. */
    public static RedisConnector connect(String url, Duration commandTimeout, CommandLatencyRecorder latency) {
        return connect(url, commandTimeout, latency, Integer.MAX_VALUE);
    }

    /**
     * As above, with at most {@code requestQueueSize} commands held unanswered per connection: past
     * it a command fails at once, so a slow Redis cannot grow the heap without bound.
     */
    public static RedisConnector connect(String url, Duration commandTimeout, CommandLatencyRecorder latency,
                                         int requestQueueSize) {
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2)
                .commandLatencyRecorder(latency).nettyCustomizer(new ConsolidatedFlushes()).build();
        if (ClusterUrl.is(url)) {
            return connectCluster(ClusterUrl.seeds(url), commandTimeout, requestQueueSize, resources);
        }
        RedisURI uri = withSentinelLogin(RedisURI.create(url));
        uri.setTimeout(commandTimeout);
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(standaloneOptions(commandTimeout, requestQueueSize));
        try {
            return new RedisConnector(resources, client, client.connect());
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * A {@code redis-sentinel://:password@...} URL's login applied to its sentinels as well: Lettuce
     * gives it to the primary and replicas only, and a sentinel that requires a password (Redis 5.0.1
     * on) answers NOAUTH. One password for the sentinels and the data nodes, as the development
     * overlay runs them; a sentinel given its own password in code keeps it.
     */
    static RedisURI withSentinelLogin(RedisURI uri) {
        if (uri.getSentinels().isEmpty() || !hasPassword(uri)) {
            return uri;
        }
        for (RedisURI sentinel : uri.getSentinels()) {
            // Lettuce gives each sentinel of a parsed URL an empty login of its own.
            if (!hasPassword(sentinel)) {
                sentinel.setCredentialsProvider(uri.getCredentialsProvider());
            }
        }
        return uri;
    }

    private static boolean hasPassword(RedisURI uri) {
        io.lettuce.core.RedisCredentialsProvider provider = uri.getCredentialsProvider();
        if (provider == null) {
            return false;
        }
        io.lettuce.core.RedisCredentials credentials = provider.resolveCredentials().block(Duration.ofSeconds(5));
        return credentials != null && credentials.hasPassword();
    }

    private static RedisConnector connectCluster(List<RedisURI> seeds, Duration commandTimeout, int requestQueueSize,
                                                 ClientResources resources) {
        for (RedisURI seed : seeds) {
            seed.setTimeout(commandTimeout);
        }
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                // Not REJECT_COMMANDS: Lettuce opens a node's connection on its first command, and
                // rejecting would fail that command (and the first after a failover) every time.
                // The request queue's bound and the command timeout still keep a dead node from
                // holding commands without end.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .requestQueueSize(requestQueueSize)
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                // A failover moves slots: MOVED and lost connections refresh the map at once, and
                // a periodic refresh finds what no command ran into.
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .enablePeriodicRefresh(Duration.ofSeconds(10))
                        .build())
                .build());
        try {
            return new RedisConnector(resources, client, client.connect(), seeds.get(0), commandTimeout,
                    requestQueueSize);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static ClientOptions standaloneOptions(Duration commandTimeout, int requestQueueSize) {
        return ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(requestQueueSize)
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .build();
    }

    /**
     * On a cluster: the node that serves {@code slot} as primary now, as this client last saw the
     * topology, with the seed's login and TLS; empty while no node serves it (a failover).
     */
    public Optional<RedisURI> primaryFor(int slot) {
        if (!isCluster()) {
            throw new IllegalStateException("slots exist on a Redis Cluster only");
        }
        RedisClusterNode node = ((StatefulRedisClusterConnection<String, String>) connection).getPartitions()
                .getMasterBySlot(slot);
        if (node == null || node.getUri() == null || node.is(RedisClusterNode.NodeFlag.FAIL)) {
            return Optional.empty();
        }
        RedisURI uri = RedisURI.create(node.getUri().getHost(), node.getUri().getPort());
        uri.setSsl(seed.isSsl());
        uri.setVerifyPeer(seed.getVerifyMode());
        uri.setCredentialsProvider(seed.getCredentialsProvider());
        uri.setTimeout(commandTimeout);
        return Optional.of(uri);
    }

    /** On a cluster: asks the nodes for the topology again, in the background (after a write met a moved slot). */
    public void refreshTopology() {
        ((RedisClusterClient) client).refreshPartitionsAsync();
    }

    /**
     * On a cluster: a client for connections of their own to single nodes (a WAIT must run on the
     * connection that wrote), with the shared connection's options.
     */
    public synchronized RedisClient nodeClient() {
        if (!isCluster()) {
            throw new IllegalStateException("node clients are for a Redis Cluster; use client()");
        }
        if (nodeClient == null) {
            nodeClient = RedisClient.create(resources);
            nodeClient.setOptions(standaloneOptions(commandTimeout, requestQueueSize));
        }
        return nodeClient;
    }

    /**
     * One socket write for all the commands queued on a connection meanwhile, instead of one per
     * command. Commands come from many threads (every device connection's event loop), and Lettuce
     * flushes each one; under load that meant a write system call per packet here and a read per
     * packet in Redis, which cost Redis more than the scripts themselves at the open-loop rates of
     * bench/e2e-benchmark.sh. The flush runs right after the writes already queued on the
     * connection's event loop, so an idle connection still sends at once.
     */
    private static final class ConsolidatedFlushes implements NettyCustomizer {
        @Override
        public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst(new FlushConsolidationHandler(256, true));
        }
    }

    /**
     * A separate connection for subscriptions (a subscribed connection takes no other commands). On
     * a cluster, a message published on any node reaches the subscribers of every node.
     */
    public StatefulRedisPubSubConnection<String, String> connectPubSub() {
        return client instanceof RedisClusterClient cluster ? cluster.connectPubSub()
                : ((RedisClient) client).connectPubSub();
    }

    /** The shared connection's commands, on one Redis or a cluster. */
    public RedisClusterAsyncCommands<String, String> async() {
        return async;
    }

    /** The shared connection's blocking commands: for the start and tools, never on an event loop. */
    public RedisClusterCommands<String, String> sync() {
        return sync;
    }

    /** A connection of its own, like the shared one: for commands that hold a connection (a blocking read). */
    public Dedicated dedicated() {
        if (client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, String> own = cluster.connect();
            return new Dedicated(own, own.sync(), own.async());
        }
        StatefulRedisConnection<String, String> own = ((RedisClient) client).connect();
        return new Dedicated(own, own.sync(), own.async());
    }

    /** A connection of the caller's, with its commands; closing it closes the connection. */
    public record Dedicated(StatefulConnection<String, String> connection, RedisClusterCommands<String, String> sync,
                            RedisClusterAsyncCommands<String, String> async) implements AutoCloseable {
        @Override
        public void close() {
            connection.close();
        }
    }

    /** Whether this is a Redis Cluster: keys of one script call or MULTI block must share a slot. */
    public boolean isCluster() {
        return client instanceof RedisClusterClient;
    }

    /** The shared connection to one Redis; not on a cluster. */
    public StatefulRedisConnection<String, String> connection() {
        if (connection instanceof StatefulRedisConnection<String, String> single) {
            return single;
        }
        throw new IllegalStateException("a Redis Cluster connection has no single-node connection");
    }

    /** The client of one Redis, for connections of their own; not on a cluster. */
    public RedisClient client() {
        if (client instanceof RedisClient single) {
            return single;
        }
        throw new IllegalStateException("a Redis Cluster has no single-node client");
    }

    public boolean isConnected() {
        return connection.isOpen();
    }

    @Override
    public void close() {
        connection.close();
        synchronized (this) {
            if (nodeClient != null) {
                nodeClient.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
        client.shutdown(0, 2, TimeUnit.SECONDS);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
