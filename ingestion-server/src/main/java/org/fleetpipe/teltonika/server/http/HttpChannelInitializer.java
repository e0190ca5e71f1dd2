package org.fleetpipe.teltonika.server.http;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP pipeline, in the order a byte travels: the read timeout, the codec, flow control (one
 * decoded part per read), the connection caps,
 * one request at a time with write back-pressure and the request deadline ({@link HttpRequestSequencer}),
 * the checks on the head ({@link HttpRequestGate}: the token before any body is read), the body,
 * then the router. The channel reads on demand only (autoRead off). The API port and the health
 * port each build their own.
 */
public final class HttpChannelInitializer extends ChannelInitializer<Channel> {

    /** The largest body (a bulk admission change of 10,000 IMEIs is about 200 KiB). */
    static final int MAX_REQUEST_BYTES = 1024 * 1024;
    private static final int MAX_INITIAL_LINE = 4096;
    private static final int MAX_HEADERS = 8192;
    private static final int MAX_CHUNK = 8192;
    private static final int MAX_READ_BYTES = 1024;

    private final HttpConnections connections;
    private final BearerTokenAuth auth;
    private final HttpRouter router;
    private final long readTimeoutMillis;
    private final RequestDeadline deadline;

    /** @param auth the API's tokens; null on the health port (no API there) */
    HttpChannelInitializer(HttpConnections connections, BearerTokenAuth auth, HttpRouter router,
                           Duration readTimeout, RequestDeadline deadline) {
        this.connections = connections;
        this.auth = auth;
        this.router = router;
        this.readTimeoutMillis = readTimeout.toMillis();
        this.deadline = deadline;
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.config().setAutoRead(false);
        // Small reads: whatever one read decodes waits in the flow control handler at once, and a
        // read of the smallest requests (16 bytes) stays under the codec's 128 requests decoded and
        // not yet answered, so a client that pipelines deeply is slowed down, not cut off.
        ch.config().setRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator(64, MAX_READ_BYTES, MAX_READ_BYTES));
        ch.pipeline()
                // Longer than the longest wait_ms, so a waiting request is answered. It also closes a
                // client that stopped reading: then we stopped reading it too.
                .addLast("timeout", new ReadTimeoutHandler(readTimeoutMillis, TimeUnit.MILLISECONDS))
                .addLast("codec", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK))
                // Holds what one socket read decoded and hands it on one part per read(): the
                // sequencer pulls, so the decoded requests of a read wait here, not in our queues.
                .addLast("flow", new FlowControlHandler())
                .addLast("connections", connections)
                .addLast("sequencer", new HttpRequestSequencer(deadline))
                .addLast("gate", new HttpRequestGate(auth, MAX_REQUEST_BYTES))
                .addLast("body", new BodyAggregator(MAX_REQUEST_BYTES))
                .addLast("router", router);
    }

    /**
     * Netty's aggregator, answering a chunked body that grows past the limit in our error shape, and
     * leaving the reading to the sequencer (its own reads would ask for parts beyond the request).
     */
    private static final class BodyAggregator extends HttpObjectAggregator {
        BodyAggregator(int maxContentLength) {
            super(maxContentLength);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.fireChannelReadComplete();
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            HttpResponses.error(ctx, false, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "too-large",
                    "the body may have at most " + MAX_REQUEST_BYTES + " bytes");
        }
    }
}
