package org.fleetpipe.teltonika.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Owns the Lettuce client and the one shared connection every component pipelines on.
 * Commands issued while Redis is unreachable fail at once instead of queueing without bound:
 * a device then gets no ACK and resends, which is the only safe answer.
 */
public final class RedisConnector implements AutoCloseable {

    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private RedisConnector(ClientResources resources, RedisClient client,
                           StatefulRedisConnection<String, String> connection) {
        this.resources = resources;
        this.client = client;
        this.connection = connection;
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
        RedisURI uri = RedisURI.create(url);
        uri.setTimeout(commandTimeout);
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2)
                .commandLatencyRecorder(latency).nettyCustomizer(new ConsolidatedFlushes()).build();
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(requestQueueSize)
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .build());
        try {
            return new RedisConnector(resources, client, client.connect());
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
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

    /** A separate connection for subscriptions (a subscribed connection takes no other commands). */
    public StatefulRedisPubSubConnection<String, String> connectPubSub() {
        return client.connectPubSub();
    }

    public StatefulRedisConnection<String, String> connection() {
        return connection;
    }

    public RedisClient client() {
        return client;
    }

    public boolean isConnected() {
        return connection.isOpen();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
