package org.fleetpipe.teltonika.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * {@code /health/live}, {@code /health/ready} and {@code /metrics}; the operator API under
 * {@code /api/v1/} arrives with the commands issue and answers 404 in the contract's JSON form until then.
 */
@Sharable
final class HealthAndMetricsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final Supplier<CompletionStage<Readiness>> readiness;
    private final Supplier<String> prometheus;

    HealthAndMetricsHandler(Supplier<CompletionStage<Readiness>> readiness, Supplier<String> prometheus) {
        this.readiness = readiness;
        this.prometheus = prometheus;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String path = new QueryStringDecoder(request.uri()).path();
        if (!request.method().equals(HttpMethod.GET)) {
            send(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, json("method-not-allowed",
                    "only GET is served here"), "application/json");
            return;
        }
        switch (path) {
            case "/health/live" -> send(ctx, keepAlive, HttpResponseStatus.OK, "{\"status\":\"live\"}",
                    "application/json");
            case "/health/ready" -> readiness.get().whenComplete((r, e) -> ctx.executor().execute(() -> {
                Readiness state = e != null ? Readiness.notReady("readiness check failed: " + e) : r;
                send(ctx, keepAlive, state.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                        state.toJson(), "application/json");
            }));
            case "/metrics" -> send(ctx, keepAlive, HttpResponseStatus.OK, prometheus.get(),
                    "text/plain; version=0.0.4; charset=utf-8");
            default -> send(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, json("not-found", "no such path: " + path),
                    "application/json");
        }
    }

    static String json(String code, String message) {
        return "{\"error\":\"" + escape(code) + "\",\"message\":\"" + escape(message) + "\"}";
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }

    private static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String body,
                             String contentType) {
        ByteBuf content = ctx.alloc().buffer().writeBytes(body.getBytes(StandardCharsets.UTF_8));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        HttpUtil.setContentLength(response, content.readableBytes());
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
