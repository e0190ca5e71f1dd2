package org.fleetpipe.teltonika.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
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

    /**
     * {@code body} as JSON, its bytes held by {@code hold} (resized to what they are) until the
     * answer is in the socket or failed. Serialized to bytes at once, never to a String first.
     */
    public static void json(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, Object body,
                            AnswerBudget.Hold hold) {
        byte[] bytes;
        try {
            bytes = Json.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException | RuntimeException e) {
            hold.release();
            throw new IllegalStateException(e);
        }
        hold.resize(bytes.length);
        send(ctx, keepAlive, status, bytes, "application/json", null).addListener(f -> hold.release());
    }

    /** The contract's error shape with {@code Retry-After}: come back in {@code seconds}. */
    public static void busy(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String code,
                            String message, int seconds) {
        HttpHeaders headers = new DefaultHttpHeaders().set(HttpHeaderNames.RETRY_AFTER, seconds);
        error(ctx, keepAlive, status, code, message, headers);
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
        send(ctx, keepAlive, status, body.getBytes(StandardCharsets.UTF_8), contentType, headers);
    }

    /** Writes the answer; the future completes once it is in the socket (or failed). */
    private static ChannelFuture send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status,
                                      byte[] body, String contentType, HttpHeaders headers) {
        ByteBuf content = ctx.alloc().buffer(body.length).writeBytes(body);
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
            ChannelFuture written = ctx.writeAndFlush(response);
            written.addListener(f -> {
                if (f.isSuccess()) {
                    HttpRequestSequencer.answered(channel);
                } else {
                    channel.close();
                }
            });
            return written;
        }
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        HttpRequestSequencer.closing(channel);
        ChannelFuture written = ctx.writeAndFlush(response);
        LingeringClose.after(written);
        return written;
    }
}
