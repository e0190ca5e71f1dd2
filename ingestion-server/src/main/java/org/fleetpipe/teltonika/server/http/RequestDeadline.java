package org.fleetpipe.teltonika.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * How long a client may take to send one request, head and body, counted from the connection's
 * start or the previous answer: a slow-loris that trickles its head or body, or holds a connection
 * without sending anything, loses the connection when it runs out. One per listener; the
 * connection's {@link HttpRequestSequencer} arms and disarms it, as it alone knows when the server
 * waits for the client.
 */
public final class RequestDeadline {

    private final long millis;
    private final String setting;
    private final Counter expired;

    private RequestDeadline(Duration timeout, String setting, Counter expired) {
        this.millis = timeout.toMillis();
        this.setting = setting;
        this.expired = expired;
    }

    /**
     * The API port's deadline.
     *
     * @param registry where {@code teltonika_http_request_timeouts_total} goes; null for none
     */
    public static RequestDeadline api(Duration timeout, MeterRegistry registry) {
        return new RequestDeadline(timeout, "HTTP_REQUEST_TIMEOUT", registry == null ? null
                : Counter.builder("teltonika.http.request.timeouts")
                        .description("HTTP connections closed: a request (head and body) not in within"
                                + " HTTP_REQUEST_TIMEOUT, idle keep-alive connections included")
                        .register(registry));
    }

    /** The health port's deadline (the same setting). */
    public static RequestDeadline health(Duration timeout, MeterRegistry registry) {
        return new RequestDeadline(timeout, "HTTP_REQUEST_TIMEOUT", registry == null ? null
                : Counter.builder("teltonika.health.request.timeouts")
                        .description("health port connections closed: a request not in within HTTP_REQUEST_TIMEOUT")
                        .register(registry));
    }

    /** Starts the time for the next request; {@code onExpiry} runs on the channel's event loop. */
    ScheduledFuture<?> arm(ChannelHandlerContext ctx, Runnable onExpiry) {
        return ctx.executor().schedule(onExpiry, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Ends the connection whose request did not come in time: with a 408 when its head came (the
     * client is waiting for an answer), else at once (a partial head, or nothing since the last answer).
     */
    void expire(ChannelHandlerContext ctx, boolean headRead) {
        if (expired != null) {
            expired.increment();
        }
        if (headRead) {
            HttpResponses.error(ctx, false, HttpResponseStatus.REQUEST_TIMEOUT, "request-timeout",
                    "the request's body did not arrive within " + millis + " ms (" + setting + ")");
        } else {
            ctx.close();
        }
    }
}
