package org.fleetpipe.teltonika.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.server.tcp.Transports;

/**
 * One HTTP listener: the API port (health, readiness, metrics and the operator API) or the health
 * port (health, readiness and metrics only, so the probes never wait behind API clients). It runs
 * on an event loop group apart from the devices', so an HTTP client, hostile or not, never holds up
 * a device connection.
 */
public final class OperatorHttpServer {

    private Channel listener;

    /** Binds {@code pipeline} to {@code host:port} on {@code group} (accepting and serving). */
    public InetSocketAddress bind(EventLoopGroup group, String host, int port, HttpChannelInitializer pipeline)
            throws InterruptedException {
        listener = new ServerBootstrap()
                .group(group, group)
                .channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(pipeline)
                .bind(host, port).sync().channel();
        return (InetSocketAddress) listener.localAddress();
    }

    /**
     * The API port's pipeline.
     *
     * @param readTimeout a connection that sends nothing for this long is closed (longer than the
     *                    longest wait_ms)
     * @param deadline    the time a client has for one request, head and body
     */
    public static HttpChannelInitializer api(HttpConnections connections,
                                             Supplier<CompletionStage<Readiness>> readiness,
                                             Supplier<String> prometheus, BearerTokenAuth auth, ApiDispatcher api,
                                             Duration readTimeout, RequestDeadline deadline) {
        return new HttpChannelInitializer(connections, auth, new HttpRouter(readiness, prometheus, api),
                readTimeout, deadline);
    }

    /** The health port's pipeline: {@code /health/*} and {@code /metrics}, no API, no token. */
    public static HttpChannelInitializer health(HttpConnections connections,
                                                Supplier<CompletionStage<Readiness>> readiness,
                                                Supplier<String> prometheus, Duration readTimeout,
                                                RequestDeadline deadline) {
        return new HttpChannelInitializer(connections, null, new HttpRouter(readiness, prometheus, null),
                readTimeout, deadline);
    }

    /** The API pipeline a real connection gets, for tests that run it on an EmbeddedChannel. */
    static HttpChannelInitializer pipeline(HttpConnections connections, Supplier<CompletionStage<Readiness>> readiness,
                                           Supplier<String> prometheus, BearerTokenAuth auth, ApiDispatcher api,
                                           Duration readTimeout) {
        return api(connections, readiness, prometheus, auth, api, readTimeout,
                RequestDeadline.api(readTimeout, null));
    }

    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
    }
}
