package org.fleetpipe.teltonika.server.api;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.http.AnswerBudget;
import org.fleetpipe.teltonika.server.http.BearerTokenAuth;
import org.fleetpipe.teltonika.server.http.HttpResponses;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One authenticated API call matched to its route: the request, the path's parameters, how to
 * answer it, and who sent it. Every change that succeeds (a call other than GET answered 2xx) is
 * logged with the fingerprint of the token that made it.
 */
public record ApiCall(ChannelHandlerContext ctx, FullHttpRequest request, Map<String, String> params,
                      boolean keepAlive, BearerTokenAuth.Caller caller) {

    /** Where the API's paths start. */
    public static final String PREFIX = "/api/v1/";

    private static final Logger LOG = LoggerFactory.getLogger(ApiCall.class);

    /** True when the caller holds the read-only token: parameter values are masked in what it is shown. */
    public boolean masked() {
        return caller.access() == BearerTokenAuth.Access.READ;
    }

    /**
     * Logs a read once, before it is answered: which path, by which token (its fingerprint), from
     * where; never the answer. Reads show device data, so who read what must be traceable.
     */
    void logRead() {
        String uri = request.uri();
        int query = uri.indexOf('?');
        LOG.info("api read: GET {} token={} from={}", query < 0 ? uri : uri.substring(0, query), caller.fingerprint(),
                ctx.channel().remoteAddress());
    }

    /** The path parameter {@code name} of the route's template. */
    public String param(String name) {
        String value = params.get(name);
        if (value == null) {
            throw new IllegalArgumentException("the route has no parameter " + name);
        }
        return value;
    }

    /**
     * The query parameter's first value, or null when absent.
     *
     * @throws IllegalArgumentException when the query string is malformed
     */
    public String query(String name) {
        List<String> values = new QueryStringDecoder(request.uri()).parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The body bound to {@code type} by the strict mapper (read now: the body is released after the handler). */
    public <T> RequestBody.Result<T> body(Class<T> type) {
        return RequestBody.read(request.content(), type);
    }

    /** Answers {@code body} as JSON on the channel's event loop, whichever thread completes the work. */
    public void json(HttpResponseStatus status, Object body) {
        logChange(status);
        ctx.executor().execute(() -> HttpResponses.json(ctx, keepAlive, status, body));
    }

    /** Answers {@code body} as JSON, its bytes held by {@code hold} until they are in the socket. */
    public void json(HttpResponseStatus status, Object body, AnswerBudget.Hold hold) {
        try {
            ctx.executor().execute(() -> HttpResponses.json(ctx, keepAlive, status, body, hold));
        } catch (RuntimeException e) {
            hold.release();
            throw e;
        }
    }

    /** Answers the contract's error shape with {@code Retry-After: seconds}. */
    public void busy(HttpResponseStatus status, String code, String message, int seconds) {
        ctx.executor().execute(() -> HttpResponses.busy(ctx, keepAlive, status, code, message, seconds));
    }

    /** Answers 204 without a body. */
    public void noContent() {
        logChange(HttpResponseStatus.NO_CONTENT);
        ctx.executor().execute(() -> HttpResponses.noContent(ctx, keepAlive));
    }

    /** Answers the contract's error shape. */
    public void error(HttpResponseStatus status, String code, String message) {
        ctx.executor().execute(() -> HttpResponses.error(ctx, keepAlive, status, code, message));
    }

    /** Answers {@code text} as it is. */
    public void text(HttpResponseStatus status, String text, String contentType) {
        logChange(status);
        ctx.executor().execute(() -> HttpResponses.send(ctx, keepAlive, status, text, contentType));
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
