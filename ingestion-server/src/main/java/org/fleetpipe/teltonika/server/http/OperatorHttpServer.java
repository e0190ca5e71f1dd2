package org.fleetpipe.teltonika.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.server.tcp.Transports;

/** The HTTP listener: health, readiness, metrics and the operator API. */
public final class OperatorHttpServer {

    /** The largest body (a bulk admission change of 10,000 IMEIs is about 200 KiB). */
    private static final int MAX_REQUEST_BYTES = 1024 * 1024;
    private static final int MAX_INITIAL_LINE = 4096;
    private static final int MAX_HEADERS = 8192;

    private Channel listener;

    public InetSocketAddress bind(EventLoopGroup boss, EventLoopGroup workers, String host, int port,
                                  Supplier<CompletionStage<Readiness>> readiness, Supplier<String> prometheus,
                                  BearerTokenAuth auth, List<ApiRoute> routes, java.time.Duration readTimeout)
            throws InterruptedException {
        HttpRouter handler = new HttpRouter(readiness, prometheus, auth, routes);
        listener = new ServerBootstrap()
                .group(boss, workers)
                .channel(Transports.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                // Longer than the longest wait_ms, so a waiting request is answered.
                                .addLast(new ReadTimeoutHandler(readTimeout.toMillis(),
                                        java.util.concurrent.TimeUnit.MILLISECONDS))
                                .addLast(new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, 8192))
                                .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast(new HttpRequestSequencer())
                                .addLast(handler);
                    }
                })
                .bind(host, port).sync().channel();
        return (InetSocketAddress) listener.localAddress();
    }

    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
    }
}
