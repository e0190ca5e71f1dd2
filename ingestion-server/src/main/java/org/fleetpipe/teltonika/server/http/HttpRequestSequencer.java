package org.fleetpipe.teltonika.server.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * One request at a time per connection, and write back-pressure. HTTP/1.1 lets a client send
 * requests before it read the answers, and those answers must come in request order; some are
 * asynchronous (readiness, API calls). So the parts of a request (head, body chunks) are handed on
 * as they come, and once a request is complete nothing more is handed on, and nothing more read
 * from the socket (the channel runs with autoRead off), until its answer was written out: the
 * write finished and the channel is writable. A client that pipelines requests and never reads the
 * answers therefore stops the server reading it, instead of making it buffer answers without end.
 * The requests that one socket read already held wait here, at most {@value #MAX_QUEUED}.
 */
final class HttpRequestSequencer extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<HttpRequestSequencer> KEY =
            AttributeKey.valueOf(HttpRequestSequencer.class, "sequencer");
    /** Pipelined requests waiting; a client sending more than this at once is not a probe or a scraper. */
    static final int MAX_QUEUED = 16;

    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private int queuedRequests;
    private ChannelHandlerContext ctx;
    /** Parts of the current request are still coming. */
    private boolean inRequest;
    /** The current request is complete and its answer not yet written. */
    private boolean awaitingAnswer;
    /** The answer was written before the request's last part came (a refusal on the head). */
    private boolean answeredEarly;
    private boolean forwarding;
    private boolean waitingForWritable;
    private boolean closing;

    /** Called on the event loop once the answer to the current request is written. */
    static void answered(Channel channel) {
        HttpRequestSequencer sequencer = channel.attr(KEY).get();
        if (sequencer != null) {
            sequencer.answered();
        }
    }

    /** Called when an answer closes the connection: nothing more is read or handed on. */
    static void closing(Channel channel) {
        HttpRequestSequencer sequencer = channel.attr(KEY).get();
        if (sequencer != null) {
            sequencer.closing = true;
            sequencer.releaseQueued();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().attr(KEY).set(this);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        boolean startsRequest = !inRequest;
        if (awaitingAnswer || !queue.isEmpty() || (startsRequest && !ctx.channel().isWritable())) {
            waitingForWritable |= !awaitingAnswer && !ctx.channel().isWritable();
            enqueue(msg);
            return;
        }
        forward(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.fireChannelReadComplete();
        if (!awaitingAnswer && queue.isEmpty()) {
            readMore();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ctx.fireChannelWritabilityChanged();
        if (waitingForWritable && ctx.channel().isWritable()) {
            waitingForWritable = false;
            proceed();
        }
    }

    private void enqueue(Object msg) {
        if (msg instanceof HttpRequest) {
            if (queuedRequests >= MAX_QUEUED) {
                ReferenceCountUtil.release(msg);
                closing = true;
                releaseQueued();
                ctx.close();
                return;
            }
            queuedRequests++;
        }
        queue.add(msg);
    }

    private void forward(Object msg) {
        if (msg instanceof HttpRequest) {
            inRequest = true;
            answeredEarly = false;
        }
        if (msg instanceof LastHttpContent && inRequest) {
            // Marked before it is handed on, so an answer written at once finds the request complete.
            inRequest = false;
            awaitingAnswer = !answeredEarly;
            answeredEarly = false;
        }
        forwarding = true;
        try {
            ctx.fireChannelRead(msg);
        } finally {
            forwarding = false;
        }
    }

    private void answered() {
        if (inRequest) {
            answeredEarly = true;
            return;
        }
        awaitingAnswer = false;
        // Written at once, inside forward(): the loop that called it goes on by itself.
        if (!forwarding) {
            proceed();
        }
    }

    /** Hands on what waits, up to the end of the next request, then reads more; only while writable. */
    private void proceed() {
        while (!awaitingAnswer && !closing) {
            if (!ctx.channel().isActive()) {
                releaseQueued();
                return;
            }
            Object msg = queue.peek();
            if (msg == null) {
                readMore();
                return;
            }
            if (!inRequest && !ctx.channel().isWritable()) {
                waitingForWritable = true;
                return;
            }
            queue.poll();
            if (msg instanceof HttpRequest) {
                queuedRequests--;
            }
            forward(msg);
        }
    }

    private void readMore() {
        if (closing) {
            return;
        }
        if (inRequest || ctx.channel().isWritable()) {
            ctx.read();
        } else {
            waitingForWritable = true;
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
        queuedRequests = 0;
    }
}
