package org.fleetpipe.teltonika.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes HTTP answers: JSON bodies, the contract's error shape, plain text. */
public final class HttpResponses {

    static final ObjectMapper JSON = new ObjectMapper();

    private HttpResponses() {
    }

    public static void json(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, Object body) {
        String text;
        try {
            text = JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        send(ctx, keepAlive, status, text, "application/json");
    }

    /** {@code {"error": code, "message": text}}, as the contract gives it. */
    public static void error(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String code,
                             String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", message);
        json(ctx, keepAlive, status, body);
    }

    public static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String body,
                            String contentType) {
        ByteBuf content = ctx.alloc().buffer().writeBytes(body.getBytes(StandardCharsets.UTF_8));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        HttpUtil.setContentLength(response, content.readableBytes());
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
