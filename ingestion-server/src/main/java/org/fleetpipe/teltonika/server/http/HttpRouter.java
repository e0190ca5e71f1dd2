package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes by path: health and metrics, and everything under {@code /api/v1/} (its token checked on
 * the head by {@link HttpRequestGate}) to the {@link ApiRoute} of its resource; on the health port
 * there are no routes.
 */
@Sharable
final class HttpRouter extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(HttpRouter.class);

    private final Supplier<CompletionStage<Readiness>> readiness;
    private final Supplier<String> prometheus;
    private final Map<String, ApiRoute> routes = new HashMap<>();

    HttpRouter(Supplier<CompletionStage<Readiness>> readiness, Supplier<String> prometheus, List<ApiRoute> apiRoutes) {
        this.readiness = readiness;
        this.prometheus = prometheus;
        apiRoutes.forEach(r -> routes.put(r.resource(), r));
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
        String[] segments = rest.isEmpty() ? new String[0] : rest.split("/", -1);
        ApiRoute route = segments.length == 0 ? null : routes.get(segments[0]);
        if (route == null) {
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "not-found", "no such resource: " + rest);
            return;
        }
        request.retain();
        try {
            route.handle(new ApiRequest(ctx, request, segments, keepAlive, HttpRequestGate.caller(ctx)));
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
