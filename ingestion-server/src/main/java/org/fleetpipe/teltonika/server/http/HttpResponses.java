package org.fleetpipe.teltonika.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.fleetpipe.teltonika.server.json.Json;

/** Writes HTTP answers: JSON bodies, the contract's error shape, plain text. */
public final class HttpResponses {

    /** The contract's error body, in this field order. */
    private record ErrorBody(String error, String message) {
    }

    private HttpResponses() {
    }

    /** {@code body} as JSON, written by the server's one mapper ({@link Json}). */
    public static void json(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, Object body) {
        send(ctx, keepAlive, status, text(body), "application/json", null);
    }

    /** {@code {"error": code, "message": text}}, as the contract gives it. */
    public static void error(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String code,
                             String message) {
        error(ctx, keepAlive, status, code, message, null);
    }

    /** The contract's error shape with headers of its own, e.g. {@code Allow} on a 405. */
    public static void error(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String code,
                             String message, HttpHeaders headers) {
        send(ctx, keepAlive, status, text(new ErrorBody(code, message)), "application/json", headers);
    }

    public static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String body,
                            String contentType) {
        send(ctx, keepAlive, status, body, contentType, null);
    }

    /** 204: no body, so neither a length nor a type (RFC 9110, 8.6). */
    public static void noContent(ChannelHandlerContext ctx, boolean keepAlive) {
        send(ctx, keepAlive, HttpResponseStatus.NO_CONTENT, "", null, null);
    }

    private static String text(Object body) {
        try {
            return Json.MAPPER.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String body,
                             String contentType, HttpHeaders headers) {
        ByteBuf content = ctx.alloc().buffer().writeBytes(body.getBytes(StandardCharsets.UTF_8));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        if (headers != null) {
            response.headers().set(headers);
        }
        if (contentType != null) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            HttpUtil.setContentLength(response, content.readableBytes());
        }
        Channel channel = ctx.channel();
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            // The next request only once this answer is out: a client that does not read holds up
            // its own connection, not our memory.
            ctx.writeAndFlush(response).addListener(f -> {
                if (f.isSuccess()) {
                    HttpRequestSequencer.answered(channel);
                } else {
                    channel.close();
                }
            });
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            HttpRequestSequencer.closing(channel);
            LingeringClose.after(ctx.writeAndFlush(response));
        }
    }
}
