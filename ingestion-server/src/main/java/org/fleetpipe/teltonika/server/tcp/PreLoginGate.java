package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/**
 * From accept to login: the connection counts against the pre-login caps, and it is closed when
 * the login deadline passes, whatever it sends meanwhile (a reader-idle timer would let a ping or a
 * login trickled byte by byte keep it open forever), or when a newer connection takes its place in
 * a full pool. The login replaces this handler with the read-idle timer, which releases its place.
 */
final class PreLoginGate extends ChannelInboundHandlerAdapter {

    private final PreLoginCounts counts;
    private final long deadlineMillis;
    private PreLoginCounts.Place place;
    private ScheduledFuture<?> deadline;

    PreLoginGate(PreLoginCounts counts, long deadlineMillis) {
        this.counts = counts;
        this.deadlineMillis = deadlineMillis;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetAddress address = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        PreLoginCounts.Place entering = new PreLoginCounts.Place(address, () -> evict(ctx));
        String over = counts.entered(entering);
        if (over != null) {
            Disconnector.close(ctx.channel(), DisconnectReason.PRE_LOGIN_LIMIT, over);
            return;
        }
        place = entering;
        deadline = ctx.executor().schedule(() -> Disconnector.close(ctx.channel(), DisconnectReason.LOGIN_TIMEOUT,
                "not logged in within " + deadlineMillis + " ms of the connection"), deadlineMillis,
                TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        leave();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        leave();
    }

    /**
     * Called from whichever loop let a newer connection in; the close goes through this channel's own
     * loop. The place is already taken back; a login that got here first keeps its connection.
     */
    private void evict(ChannelHandlerContext ctx) {
        try {
            ctx.channel().eventLoop().execute(() -> {
                if (!ctx.isRemoved()) {
                    Disconnector.close(ctx.channel(), DisconnectReason.PRE_LOGIN_EVICTED, "the oldest connection "
                            + "not logged in, and the pool of them is full: made room for a newer one");
                }
            });
        } catch (RejectedExecutionException stopping) {
            // Its loop is shutting down and closes it anyway.
        }
    }

    private void leave() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
        if (place != null) {
            counts.left(place);
            place = null;
        }
    }
}
