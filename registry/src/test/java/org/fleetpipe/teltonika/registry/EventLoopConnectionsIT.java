package org.fleetpipe.teltonika.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.registry.testing.RedisFixture;
import org.fleetpipe.teltonika.registry.testing.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A Redis connection on each event loop of a group the caller owns, replies handled on that loop. */
@WithRedis
class EventLoopConnectionsIT {

    private final RedisFixture redis;
    private EventLoopGroup group;
    private RedisConnector connector;

    EventLoopConnectionsIT(RedisFixture redis) {
        this.redis = redis;
    }

    @BeforeEach
    void start() {
        // This module has no native transport on its class path, so Lettuce's channels are NIO ones.
        group = new MultiThreadIoEventLoopGroup(3, NioIoHandler.newFactory());
        connector = RedisConnector.connect(redis.uri(), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() throws Exception {
        if (connector != null) {
            connector.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void open_whenAGroupOfThreeLoops_thenOneConnectionOnEachWhoseRepliesRunOnIt() throws Exception {
        try (EventLoopConnections connections = connector.connectOnEventLoops(group)) {
            Map<EventExecutor, StatefulRedisConnection<String, String>> byLoop = connections.byLoop();
            Set<EventExecutor> loops = new HashSet<>();
            group.forEach(loops::add);
            assertThat(byLoop.keySet()).isEqualTo(loops);

            for (Map.Entry<EventExecutor, StatefulRedisConnection<String, String>> e : byLoop.entrySet()) {
                EventExecutor loop = e.getKey();
                // Sent from the loop itself, so the callback is attached before the loop can read the reply.
                CompletableFuture<Boolean> onItsLoop = loop.submit(() -> e.getValue().async().ping()
                        .thenApply(pong -> loop.inEventLoop()).toCompletableFuture()).get(5, TimeUnit.SECONDS);
                assertThat(onItsLoop.get(5, TimeUnit.SECONDS)).as("reply handled on %s", loop).isTrue();
            }
        }
    }

    @Test
    void close_thenTheConnectionsCloseAndTheGroupKeepsRunning() {
        EventLoopConnections connections = connector.connectOnEventLoops(group);
        var opened = connections.byLoop().values();

        connections.close();

        assertThat(opened).noneMatch(StatefulRedisConnection::isOpen);
        assertThat(group.isShuttingDown()).isFalse();
        assertThat(group.submit(() -> "still running").syncUninterruptibly().getNow()).isEqualTo("still running");
    }
}
