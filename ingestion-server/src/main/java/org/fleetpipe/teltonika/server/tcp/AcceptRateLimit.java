package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.TimeUnit;

/**
 * Caps the connections this instance accepts per second, across its device listeners: once a
 * tenth of a second has taken its share, a listener stops accepting until the next tenth. The
 * connections meanwhile wait in the kernel's accept queue (past it, in their own SYN retries)
 * instead of their logins taking the event loops and Redis from the devices already connected,
 * so a reconnect herd (a replica gone, a network blip) is let in at this pace.
 */
@ChannelHandler.Sharable
public final class AcceptRateLimit extends ChannelInboundHandlerAdapter {

    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int perSlice;
    private final Runnable onPause;
    private long sliceStart;
    private int accepted;

    /** {@code perSecond} at least 10 (a tenth's share is at least one); {@code onPause} counts the pauses. */
    public AcceptRateLimit(int perSecond, Runnable onPause) {
        if (perSecond < 10) {
            throw new IllegalArgumentException("at least 10 accepts a second, got " + perSecond);
        }
        this.perSlice = perSecond / 10;
        this.onPause = onPause;
        this.sliceStart = Long.MIN_VALUE;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object child) {
        // The loop's own clock, which its scheduled resume also runs by.
        long resumeIn = take(ctx.executor().ticker().nanoTime());
        ctx.fireChannelRead(child);
        if (resumeIn > 0) {
            Channel listener = ctx.channel();
            if (listener.config().isAutoRead()) {
                listener.config().setAutoRead(false);
                onPause.run();
                ctx.executor().schedule(() -> listener.config().setAutoRead(true), resumeIn, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Counts one accept; returns how long until the next tenth when this one used up the share, else 0. */
    private synchronized long take(long now) {
        // Synchronized for listeners on different accept threads; the accept path is not a hot one.
        if (sliceStart == Long.MIN_VALUE || now - sliceStart >= SLICE_NANOS) {
            sliceStart = now;
            accepted = 0;
        }
        accepted++;
        return accepted >= perSlice ? Math.max(1, sliceStart + SLICE_NANOS - now) : 0;
    }
}
