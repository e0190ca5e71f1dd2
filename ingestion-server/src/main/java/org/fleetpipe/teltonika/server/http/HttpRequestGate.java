package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

/**
 * Decides on a request's head, before any of its body is read or aggregated: a malformed head, an
 * unsupported {@code Expect}, a declared body over the limit, a call under {@code /api/v1/}
 * without a token it allows (a change with the read-only token too), and anything but a bodiless
 * GET outside {@code /api/v1/} are answered here. So a host without the operator token never makes
 * us buffer a body. A refused request that has a body closes the connection (its body is never
 * read); one without a body keeps it, if the client asked to. The caller a token names is left on
 * the channel for the router ({@link #caller}).
 */
final class HttpRequestGate extends ChannelInboundHandlerAdapter {

    static final String API = "/api/v1/";
    private static final AttributeKey<BearerTokenAuth.Caller> CALLER =
            AttributeKey.valueOf(HttpRequestGate.class, "caller");

    /** Null on the health port: no API there. */
    private final BearerTokenAuth auth;
    private final int maxBodyBytes;
    /** The rest of a refused request, dropped as it comes. */
    private boolean discarding;

    /** @param auth the API's tokens; null where no API is served (its paths are 404 then) */
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
        if (path.startsWith(API)) {
            return refusedCall(ctx, request, keepAlive);
        }
        // No token here, so no body either: nothing a client sends is buffered before a token check.
        if (!request.method().equals(HttpMethod.GET)) {
            // RFC 9110: a 405 names the methods the path has, as the API's 405s do.
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, "method-not-allowed",
                    "only GET is served at " + path, new DefaultHttpHeaders().set(HttpHeaderNames.ALLOW, "GET"));
            return true;
        }
        if (hasBody) {
            HttpResponses.error(ctx, false, HttpResponseStatus.BAD_REQUEST, "bad-request",
                    "no body is taken at " + path);
            return true;
        }
        return false;
    }

    /** The token's checks on an API call; true when answered. */
    private boolean refusedCall(ChannelHandlerContext ctx, HttpRequest request, boolean keepAlive) {
        if (auth == null) {
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "not-found",
                    "the operator API is served on HTTP_PORT, not on the health port");
            return true;
        }
        BearerTokenAuth.Caller caller = auth.caller(request);
        if (caller.access() == BearerTokenAuth.Access.NONE) {
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.UNAUTHORIZED, "unauthorized",
                    "send Authorization: Bearer <API_TOKEN>");
            return true;
        }
        if (caller.access() == BearerTokenAuth.Access.READ && !request.method().equals(HttpMethod.GET)) {
            HttpResponses.error(ctx, keepAlive, HttpResponseStatus.FORBIDDEN, "forbidden",
                    "the read-only token (API_TOKEN_READ) may only GET; changes need API_TOKEN");
            return true;
        }
        ctx.channel().attr(CALLER).set(caller);
        return false;
    }

    /** Who sent the API call the gate let through last on {@code ctx}'s channel. */
    static BearerTokenAuth.Caller caller(ChannelHandlerContext ctx) {
        BearerTokenAuth.Caller caller = ctx.channel().attr(CALLER).get();
        return caller == null ? BearerTokenAuth.Caller.NOBODY : caller;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        discarding = false;
        ctx.fireChannelInactive();
    }
}
