package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;

/**
 * Decides on a request's head, before any of its body is read or aggregated: a malformed head, an
 * unsupported {@code Expect}, a declared body over the limit, and a call under {@code /api/v1/}
 * without the bearer token are answered here. So a host without the token never makes us buffer a
 * body. A refused request that has a body closes the connection (its body is never read); one
 * without a body keeps it, if the client asked to.
 */
final class HttpRequestGate extends ChannelInboundHandlerAdapter {

    static final String API = "/api/v1/";

    private final BearerTokenAuth auth;
    private final int maxBodyBytes;
    /** The rest of a refused request, dropped as it comes. */
    private boolean discarding;

    HttpRequestGate(BearerTokenAuth auth, int maxBodyBytes) {
        this.auth = auth;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (discarding) {
            discarding = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && refused(ctx, request)) {
            discarding = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /** Answers {@code request} when it is refused on its head; true then. */
    private boolean refused(ChannelHandlerContext ctx, HttpRequest request) {
        if (request.decoderResult().isFailure()) {
            // Line or headers over the limits, or not HTTP at all: nothing after it can be trusted.
            HttpResponses.error(ctx, false, HttpResponseStatus.BAD_REQUEST, "bad-request",
                    "malformed or oversized request line or headers");
            return true;
        }
        boolean hasBody = HttpUtil.getContentLength(request, 0L) > 0 || HttpUtil.isTransferEncodingChunked(request);
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !hasBody;
        String expect = request.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect)) {
            HttpResponses.error(ctx, false, HttpResponseStatus.EXPECTATION_FAILED, "expectation-failed",
                    "only Expect: 100-continue is understood");
            return true;
        }
        if (HttpUtil.getContentLength(request, 0L) > maxBodyBytes) {
            HttpResponses.error(ctx, false, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "too-large",
                    "the body may have at most " + maxBodyBytes + " bytes");
            return true;
        }
        String path;
        try {
            path = new QueryStringDecoder(request.uri()).path();
        } catch (IllegalArgumentException e) {
            // A malformed percent escape: an answer, not a silently closed connection.
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.BAD_REQUEST, "bad-request", "malformed URI");
            return true;
        }
        if (path.startsWith(API) && !auth.allows(request)) {
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.UNAUTHORIZED, "unauthorized",
                    "send Authorization: Bearer <API_TOKEN>");
            return true;
        }
        return false;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        discarding = false;
        ctx.fireChannelInactive();
    }
}
