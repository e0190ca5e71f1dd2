package org.fleetpipe.teltonika.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.server.tcp.Transports;

/**
 * The HTTP listener: health, readiness, metrics and the operator API. It runs on an event loop
 * group of its own, so an HTTP client, hostile or not, never holds up a device connection.
 */
public final class OperatorHttpServer {

    private Channel listener;

    /**
     * Binds to {@code host:port} on {@code group} (accepting and serving).
     *
     * @param readTimeout a connection that sends nothing for this long is closed
     */
    public InetSocketAddress bind(EventLoopGroup group, String host, int port, HttpConnections connections,
                                  Supplier<CompletionStage<Readiness>> readiness, Supplier<String> prometheus,
                                  BearerTokenAuth auth, List<ApiRoute> routes, Duration readTimeout)
            throws InterruptedException {
        listener = new ServerBootstrap()
                .group(group, group)
                .channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(pipeline(connections, readiness, prometheus, auth, routes, readTimeout))
                .bind(host, port).sync().channel();
        return (InetSocketAddress) listener.localAddress();
    }

    /** The pipeline a real connection gets, for tests that run it on an EmbeddedChannel. */
    static HttpChannelInitializer pipeline(HttpConnections connections, Supplier<CompletionStage<Readiness>> readiness,
                                           Supplier<String> prometheus, BearerTokenAuth auth, List<ApiRoute> routes,
                                           Duration readTimeout) {
        return new HttpChannelInitializer(connections, auth, new HttpRouter(readiness, prometheus, routes),
                readTimeout);
    }

    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
    }
}
