package org.fleetpipe.teltonika.registry;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Redis connection per event loop of the server's own group, registered on that loop. A device
 * connection's event loop writes to its loop's Redis connection, reads the reply and writes the
 * ACK without handing anything to another thread: no wake-ups between threads per packet, which
 * cost the server more CPU than its Java code when packets arrive one by one. Lettuce runs these
 * connections on the given group (through its own client and resources) and never shuts it down.
 * A connection that reconnects may land on another loop: still correct, only no longer local.
 */
public final class EventLoopConnections implements AutoCloseable {

    private final ClientResources resources;
    private final RedisClient client;
    private final Map<EventExecutor, StatefulRedisConnection<String, String>> byLoop;

    private EventLoopConnections(ClientResources resources, RedisClient client,
                                 Map<EventExecutor, StatefulRedisConnection<String, String>> byLoop) {
        this.resources = resources;
        this.client = client;
        this.byLoop = byLoop;
    }

    static EventLoopConnections open(RedisURI uri, ClientOptions options, CommandLatencyRecorder latency,
                                     EventLoopGroup group) {
        List<EventExecutor> loops = new ArrayList<>();
        group.forEach(loops::add);
        LoopRecorder recorder = new LoopRecorder();
        ClientResources resources = DefaultClientResources.builder()
                .eventLoopGroupProvider(new SharedGroup(group, loops.size()))
                .computationThreadPoolSize(1)
                .commandLatencyRecorder(latency)
                .nettyCustomizer(recorder)
                .build();
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(options);
        Map<EventExecutor, StatefulRedisConnection<String, String>> byLoop = new LinkedHashMap<>();
        List<StatefulRedisConnection<String, String>> extra = new ArrayList<>();
        try {
            // The group hands out its loops in turn, so as many connections as loops usually cover
            // each once; one connection per loop is kept, the rest closed.
            for (int attempt = 0; attempt < 2 * loops.size() && byLoop.size() < loops.size(); attempt++) {
                StatefulRedisConnection<String, String> connection = client.connect();
                EventLoop loop = recorder.last;
                if (loop != null && !byLoop.containsKey(loop)) {
                    byLoop.put(loop, connection);
                } else {
                    extra.add(connection);
                }
            }
            if (byLoop.isEmpty()) {
                throw new IllegalStateException("no Redis connection on the server's event loops");
            }
        } catch (RuntimeException e) {
            byLoop.values().forEach(StatefulRedisConnection::close);
            extra.forEach(StatefulRedisConnection::close);
            client.shutdown(0, 2, TimeUnit.SECONDS);
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
        extra.forEach(StatefulRedisConnection::close);
        return new EventLoopConnections(resources, client, Collections.unmodifiableMap(byLoop));
    }

    /** Each loop that has a connection, with it. */
    public Map<EventExecutor, StatefulRedisConnection<String, String>> byLoop() {
        return byLoop;
    }

    /** The client of these connections, for connection listeners. */
    public RedisClient client() {
        return client;
    }

    @Override
    public void close() {
        byLoop.values().forEach(StatefulRedisConnection::close);
        client.shutdown(0, 2, TimeUnit.SECONDS);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** Consolidated flushes, as on every connection, and which loop the newest channel got. */
    private static final class LoopRecorder extends RedisConnector.ConsolidatedFlushes {
        private volatile EventLoop last;

        @Override
        public void afterChannelInitialized(Channel channel) {
            super.afterChannelInitialized(channel);
            last = channel.eventLoop();
        }
    }

    /** Lettuce's view of the server's group: handed out as is, never released or shut down by Lettuce. */
    private static final class SharedGroup implements EventLoopGroupProvider {
        private final EventLoopGroup group;
        private final int size;

        SharedGroup(EventLoopGroup group, int size) {
            this.group = group;
            this.size = size;
        }

        @Override
        public <T extends EventLoopGroup> T allocate(Class<T> type) {
            if (!type.isInstance(group)) {
                throw new IllegalStateException("Lettuce asked for a " + type.getName() + ", the server's group is a "
                        + group.getClass().getName());
            }
            return type.cast(group);
        }

        @Override
        public int threadPoolSize() {
            return size;
        }

        @Override
        public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }

        @Override
        public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }
    }
}
