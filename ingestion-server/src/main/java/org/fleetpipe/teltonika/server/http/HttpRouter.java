package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's last handler: answers health, readiness and metrics itself, and hands everything
 * under {@code /api/v1/} (its token checked on the head by {@link HttpRequestGate}) to the
 * {@link ApiDispatcher}; on the health port there is none.
 */
@Sharable
final class HttpRouter extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(HttpRouter.class);

    private final Supplier<CompletionStage<Readiness>> readiness;
    private final Supplier<String> prometheus;
    /** Null on the health port. */
    private final ApiDispatcher api;

    HttpRouter(Supplier<CompletionStage<Readiness>> readiness, Supplier<String> prometheus, ApiDispatcher api) {
        this.readiness = readiness;
        this.prometheus = prometheus;
        this.api = api;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        // HttpRequestGate answered malformed heads, bad URIs and calls without the token already.
        if (request.decoderResult().isFailure()) {
            // A malformed body (a broken chunk, say): answer once, then close.
            HttpResponses.error(ctx, false, HttpResponseStatus.BAD_REQUEST, "bad-request", "malformed request body");
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String path = new QueryStringDecoder(request.uri()).path();
        if (path.startsWith(HttpRequestGate.API)) {
            api(ctx, request, path.substring(HttpRequestGate.API.length()), keepAlive);
            return;
        }
        // Outside the API only a bodiless GET gets here (HttpRequestGate).
        switch (path) {
            case "/health/live" -> HttpResponses.json(ctx, keepAlive, HttpResponseStatus.OK, Map.of("status", "live"));
            case "/health/ready" -> readiness.get().whenComplete((r, e) -> ctx.executor().execute(() -> {
                Readiness state = e != null ? Readiness.notReady("readiness check failed") : r;
                HttpResponses.json(ctx, keepAlive,
                        state.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, state.toMap());
            }));
            case "/metrics" -> HttpResponses.send(ctx, keepAlive, HttpResponseStatus.OK, prometheus.get(),
                    "text/plain; version=0.0.4; charset=utf-8");
            default -> HttpResponses.error(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "not-found",
                    "no such path: " + path);
        }
    }

    private void api(ChannelHandlerContext ctx, FullHttpRequest request, String rest, boolean keepAlive) {
        if (api == null) {
            // The gate answers API paths on the health port already; this only keeps the router total.
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "not-found", "no such resource: " + rest);
            return;
        }
        request.retain();
        try {
            api.dispatch(ctx, request, rest, keepAlive, HttpRequestGate.caller(ctx));
        } catch (RuntimeException e) {
            LOG.warn("API call failed: {} {}", request.method(), request.uri(), e);
            // Details stay in our log; a client learns nothing about our internals.
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal",
                    "the request could not be handled");
        } finally {
            request.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A reset by the client, a read timeout: nothing to answer, nothing to alarm anyone.
        LOG.debug("HTTP connection {} closed on {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
