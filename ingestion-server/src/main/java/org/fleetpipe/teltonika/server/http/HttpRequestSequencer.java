package org.fleetpipe.teltonika.server.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;

/**
 * One request at a time per connection, with write back-pressure. HTTP/1.1 lets a client send
 * requests before it read the answers, and the answers must come in request order; some are
 * asynchronous (readiness, API calls). The channel runs with autoRead off behind a
 * {@link io.netty.handler.flow.FlowControlHandler}, so each {@code read()} brings one decoded part
 * of a request (head, body chunk, end), or a read-complete when a socket read decoded nothing whole,
 * and this handler pulls them: the parts of the current
 * request as they are needed, and the next request only once the current one's answer was written
 * out (the write finished) while the channel is writable. A client that pipelines requests and
 * never reads the answers therefore stops the server reading it, instead of making it buffer
 * answers without end; the server holds about one answer for it, and the requests of one read.
 * While it waits for a request (from the connection's start or the previous answer to the request's
 * last part) the {@link RequestDeadline} runs.
 */
final class HttpRequestSequencer extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<HttpRequestSequencer> KEY =
            AttributeKey.valueOf(HttpRequestSequencer.class, "sequencer");
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private final RequestDeadline deadline;
    /** Runs while the server waits for the client to send a whole request. */
    private ScheduledFuture<?> deadlineTimer;
    private ChannelHandlerContext ctx;
    /** Parts of the current request are still coming. */
    private boolean inRequest;
    /** The current request is complete and its answer not yet written. */
    private boolean awaitingAnswer;
    /** The answer was written before the request's last part came (a refusal on the head). */
    private boolean answeredEarly;
    private boolean forwarding;
    private boolean pulling;
    private boolean pullAgain;
    private boolean waitingForWritable;
    private boolean closing;
    /** When the server began to wait for the client's next request (System.nanoTime). */
    private long waitingSince = System.nanoTime();

    HttpRequestSequencer(RequestDeadline deadline) {
        this.deadline = deadline;
    }

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
            sequencer.disarmDeadline();
            sequencer.releaseQueued();
        }
    }

    /**
     * Since when (System.nanoTime) {@code channel} has waited for its client to send a request, no
     * part of one in and no answer owed; empty while a request is under way or the connection closing.
     * Read on the channel's event loop.
     */
    static OptionalLong idleSince(Channel channel) {
        HttpRequestSequencer sequencer = channel.attr(KEY).get();
        if (sequencer == null || sequencer.closing || sequencer.inRequest || sequencer.awaitingAnswer) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(sequencer.waitingSince);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().attr(KEY).set(this);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        armDeadline();
        proceed();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (awaitingAnswer || !queue.isEmpty()) {
            // The flow control handler hands on one part per read() asked for; a part beyond the
            // current request comes here only from the socket read under way (at most 1 KiB of
            // input), so this queue is bounded by what was read already, as the handler's own is.
            queue.add(msg);
            return;
        }
        forward(msg);
        proceed();
    }

    /** A read that brought no whole part (a request line in pieces, say) ends here: ask again. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.fireChannelReadComplete();
        if (!awaitingAnswer && queue.isEmpty()) {
            proceed();
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
            if (awaitingAnswer) {
                disarmDeadline();
            } else {
                armDeadline();
            }
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
        armDeadline();
        // Written at once, inside forward(): the caller goes on by itself.
        if (!forwarding) {
            proceed();
        }
    }

    /**
     * Hands on what waits, then asks for the next part, until a request is complete; a new request
     * only while writable. A read may hand a part over at once, calling back into channelRead: that
     * call only asks for another round of this loop, so pipelined requests never nest on the stack.
     */
    private void proceed() {
        pullAgain = true;
        if (pulling) {
            return;
        }
        pulling = true;
        try {
            while (pullAgain && !awaitingAnswer && !closing) {
                pullAgain = false;
                if (!ctx.channel().isActive()) {
                    releaseQueued();
                    return;
                }
                if (!inRequest && !ctx.channel().isWritable()) {
                    waitingForWritable = true;
                    return;
                }
                Object msg = queue.poll();
                if (msg != null) {
                    forward(msg);
                    pullAgain = true;
                } else {
                    ctx.read();
                }
            }
        } finally {
            pulling = false;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarmDeadline();
        releaseQueued();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        disarmDeadline();
        releaseQueued();
    }

    /** The time for the next request (or the rest of this one) starts now. */
    private void armDeadline() {
        disarmDeadline();
        waitingSince = System.nanoTime();
        if (!closing && ctx.channel().isActive()) {
            deadlineTimer = deadline.arm(ctx, this::deadlinePassed);
        }
    }

    private void disarmDeadline() {
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
            deadlineTimer = null;
        }
    }

    private void deadlinePassed() {
        deadlineTimer = null;
        if (closing || awaitingAnswer || !ctx.channel().isActive()) {
            // Closing already, or waiting for our own answer: not the client's time that ran out.
            return;
        }
        releaseQueued();
        deadline.expire(ctx, inRequest);
    }

    private void releaseQueued() {
        Object msg;
        while ((msg = queue.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }
}
