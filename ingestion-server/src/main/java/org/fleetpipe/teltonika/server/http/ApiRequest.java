package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/** One authenticated API call: the request, the path split in segments, and how to answer it. */
public record ApiRequest(ChannelHandlerContext ctx, FullHttpRequest request, String[] segments, boolean keepAlive) {

    /** Answers on the channel's event loop, whichever thread completes the work. */
    public void json(HttpResponseStatus status, Object body) {
        ctx.executor().execute(() -> HttpResponses.json(ctx, keepAlive, status, body));
    }

    public void error(HttpResponseStatus status, String code, String message) {
        ctx.executor().execute(() -> HttpResponses.error(ctx, keepAlive, status, code, message));
    }
}
