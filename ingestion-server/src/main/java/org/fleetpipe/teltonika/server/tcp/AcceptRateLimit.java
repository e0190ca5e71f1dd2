package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.server.limits.AddressRateLimit;
import org.fleetpipe.teltonika.server.limits.NetworkKey;

/**
 * Caps the connections this instance accepts per second, across its device listeners: once a
 * tenth of a second has taken its share, a listener stops accepting until the next tenth. The
 * connections meanwhile wait in the kernel's accept queue (past it, in their own SYN retries)
 * instead of their logins taking the event loops and Redis from the devices already connected,
 * so a reconnect herd (a replica gone, a network blip) is let in at this pace.
 *
 * <p>Each source network (/24, /64) has its own, smaller share: a connection over it is closed as
 * soon as it is accepted, before it is registered or counted against the instance's pace, so one
 * host's bare connects cannot take the whole pace from everyone else's logins; they only cost an
 * accept and a close.
 */
@ChannelHandler.Sharable
public final class AcceptRateLimit extends ChannelInboundHandlerAdapter {

    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int perSlice;
    private final AddressRateLimit perNetwork;
    private final Runnable onPause;
    private final Consumer<SocketAddress> onNetworkRefused;
    private long sliceStart;
    private int accepted;

    /** {@code perSecond} at least 10 (a tenth's share is at least one); {@code onPause} counts the pauses. */
    public AcceptRateLimit(int perSecond, Runnable onPause) {
        this(perSecond, 0, onPause, remote -> { });
    }

    /**
     * {@code perSecond}: 0 (no pace) or at least 10; {@code perNetworkPerSecond}: 0 (no share) or
     * more; {@code onNetworkRefused} is told the remote address of each connection closed over its
     * network's share.
     */
    public AcceptRateLimit(int perSecond, int perNetworkPerSecond, Runnable onPause,
                           Consumer<SocketAddress> onNetworkRefused) {
        if (perSecond != 0 && perSecond < 10) {
            throw new IllegalArgumentException("at least 10 accepts a second, got " + perSecond);
        }
        this.perSlice = perSecond / 10;
        this.perNetwork = new AddressRateLimit(Math.max(0, perNetworkPerSecond), Duration.ofSeconds(1));
        this.onPause = onPause;
        this.onNetworkRefused = onNetworkRefused;
        this.sliceStart = Long.MIN_VALUE;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object child) {
        if (child instanceof Channel connection && overNetworkShare(connection)) {
            // Not registered yet: closed here, as Netty's acceptor closes a child it cannot register.
            connection.unsafe().closeForcibly();
            onNetworkRefused.accept(connection.remoteAddress());
            return;
        }
        if (perSlice == 0) {
            ctx.fireChannelRead(child);
            return;
        }
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

    private boolean overNetworkShare(Channel connection) {
        return perNetwork.enabled() && connection.remoteAddress() instanceof InetSocketAddress remote
                && !perNetwork.tryAcquire(NetworkKey.of(remote.getAddress()));
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
