package org.fleetpipe.teltonika.server.ingest;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.redis.RedisEndpoint;
import org.fleetpipe.teltonika.redis.TransactionPipe;

/**
 * One {@link TransactionPipe} per event loop, opened the first time that loop writes telemetry:
 * a loop's packets go to Redis and their answers come back on that loop, with no other thread
 * between the device's socket and Redis's.
 */
public final class TelemetryLanes implements AutoCloseable {

    private final RedisEndpoint endpoint;
    private final Class<? extends Channel> channelType;
    private final Duration timeout;
    private final List<TransactionPipe> opened = new CopyOnWriteArrayList<>();
    private volatile EventLoopGroup served;
    private volatile boolean closed;

    /** {@code channelType} must fit the event loops' transport (epoll or NIO). */
    public TelemetryLanes(RedisEndpoint endpoint, Class<? extends Channel> channelType, Duration timeout) {
        this.endpoint = endpoint;
        this.channelType = channelType;
        this.timeout = timeout;
    }

    /** Pipes are opened only for the loops of {@code group} (the device connections' own). */
    public void serve(EventLoopGroup group) {
        served = group;
    }

    /**
     * A new pipe on {@code loop}, or null when there can be none: closed, or not a loop of the
     * served group (a write from another thread, such as Lettuce's, must not open a connection
     * on a loop that is not ours).
     */
    TransactionPipe open(EventExecutor loop) {
        if (closed || !(loop instanceof EventLoop eventLoop) || served == null || eventLoop.parent() != served) {
            return null;
        }
        TransactionPipe pipe = TransactionPipe.open(eventLoop, endpoint, channelType, timeout);
        opened.add(pipe);
        if (closed) {
            pipe.close();
        }
        return pipe;
    }

    /** Pipes connected and logged in now (one per event loop that wrote telemetry). */
    public int ready() {
        int ready = 0;
        for (TransactionPipe pipe : opened) {
            ready += pipe.ready() ? 1 : 0;
        }
        return ready;
    }

    @Override
    public void close() {
        closed = true;
        opened.forEach(TransactionPipe::close);
    }
}
