package org.fleetpipe.teltonika.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One authenticated API call: the request, the path split in segments, how to answer it, and who
 * sent it. Every change that succeeds (a call other than GET answered 2xx) is logged with the
 * fingerprint of the token that made it.
 */
public record ApiRequest(ChannelHandlerContext ctx, FullHttpRequest request, String[] segments, boolean keepAlive,
                         BearerTokenAuth.Caller caller) {

    private static final Logger LOG = LoggerFactory.getLogger(ApiRequest.class);

    /** Answers on the channel's event loop, whichever thread completes the work. */
    public void json(HttpResponseStatus status, Object body) {
        logChange(status);
        ctx.executor().execute(() -> HttpResponses.json(ctx, keepAlive, status, body));
    }

    public void error(HttpResponseStatus status, String code, String message) {
        ctx.executor().execute(() -> HttpResponses.error(ctx, keepAlive, status, code, message));
    }

    private void logChange(HttpResponseStatus status) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && status.codeClass() == HttpStatusClass.SUCCESS) {
            // The URI names what changed; its request line was checked by the codec (no line breaks).
            LOG.info("api change: {} {} answered {} token={} from={}", method, request.uri(), status.code(),
                    caller.fingerprint(), ctx.channel().remoteAddress());
        }
    }
}
