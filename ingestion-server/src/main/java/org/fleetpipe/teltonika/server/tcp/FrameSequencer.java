package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.fleetpipe.teltonika.codec.frame.PingFrame;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/**
 * Hands frames on one at a time: the next one only after the handler of the previous one called
 * {@link #frameDone(Channel)} (after the login answer, after a packet's ACK). As soon as a frame
 * has to wait behind another, the channel stops reading until the queue is empty again, which is
 * the back-pressure: a slow Redis slows the devices' sockets instead of filling our memory. Frames
 * that arrived in the same read wait in a small bounded queue. A device that waits for each answer
 * before it sends again, as devices do, never has a frame wait, so its channel keeps reading and
 * costs no pair of {@code epoll_ctl} calls per packet; it has nothing more to send meanwhile.
 */
final class FrameSequencer extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<FrameSequencer> KEY = AttributeKey.valueOf(FrameSequencer.class, "sequencer");
    /** Set on every device channel when the server stops: read nothing more, finish what was read. */
    static final AttributeKey<Boolean> DRAINING = AttributeKey.valueOf(FrameSequencer.class, "draining");

    private final int maxQueued;
    private final IngestionMetrics metrics;
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean busy;
    /** Reading was turned off here because a frame waits; turned on again when none does. */
    private boolean paused;

    FrameSequencer(int maxQueued, IngestionMetrics metrics) {
        this.maxQueued = maxQueued;
        this.metrics = metrics;
    }

    /** Called on the channel's event loop when the current frame is fully handled. */
    static void frameDone(Channel channel) {
        FrameSequencer sequencer = channel.attr(KEY).get();
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
        if (msg == PingFrame.INSTANCE) {
            // A keep-alive needs no answer; reading it already reset the idle timer.
            metrics.pingReceived();
            return;
        }
        if (!busy) {
            dispatch(msg);
            return;
        }
        if (queue.size() >= maxQueued) {
            ReferenceCountUtil.release(msg);
            metrics.frameRejected("too-many-queued-frames");
            Disconnector.close(ctx.channel(), DisconnectReason.TOO_MANY_QUEUED_FRAMES,
                    "more than " + maxQueued + " frames sent ahead of their ACKs");
            return;
        }
        queue.add(msg);
        if (!paused) {
            paused = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void dispatch(Object msg) {
        busy = true;
        ctx.fireChannelRead(msg);
    }

    private void next() {
        if (!ctx.channel().isActive()) {
            return;
        }
        Object msg = queue.poll();
        if (msg != null) {
            dispatch(msg);
        } else {
            busy = false;
            if (paused && !ctx.channel().hasAttr(DRAINING)) {
                paused = false;
                ctx.channel().config().setAutoRead(true);
            }
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
