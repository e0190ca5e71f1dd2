package org.fleetpipe.teltonika.server.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * HTTP/1.1 lets a client send requests before it read the answers, and those answers must come
 * in request order. Some answers are asynchronous (readiness, API calls), so requests are handed
 * to the router one at a time: the next one only after the previous answer was written.
 */
final class HttpRequestSequencer extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<HttpRequestSequencer> KEY =
            AttributeKey.valueOf(HttpRequestSequencer.class, "sequencer");
    /** Pipelined requests waiting; a client sending more than this is not a probe or a scraper. */
    private static final int MAX_QUEUED = 16;

    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean busy;

    /** Called on the event loop once the answer to the current request is written. */
    static void answered(Channel channel) {
        HttpRequestSequencer sequencer = channel.attr(KEY).get();
        if (sequencer != null) {
            sequencer.next();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().attr(KEY).set(this);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!busy) {
            busy = true;
            ctx.fireChannelRead(msg);
            return;
        }
        if (queue.size() >= MAX_QUEUED) {
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        queue.add(msg);
    }

    private void next() {
        Object msg = queue.poll();
        if (msg == null) {
            busy = false;
        } else if (ctx.channel().isActive()) {
            ctx.fireChannelRead(msg);
        } else {
            ReferenceCountUtil.release(msg);
            releaseQueued();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseQueued();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseQueued();
    }

    private void releaseQueued() {
        Object msg;
        while ((msg = queue.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }
}
