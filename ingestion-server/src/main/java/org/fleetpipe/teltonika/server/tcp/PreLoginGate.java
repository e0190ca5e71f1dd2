package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/**
 * From accept to login: the connection counts against the pre-login caps, and it is closed when
 * the login deadline passes, whatever it sends meanwhile (a reader-idle timer would let a ping or a
 * login trickled byte by byte keep it open forever). The login replaces this handler with the
 * read-idle timer, which releases its place.
 */
final class PreLoginGate extends ChannelInboundHandlerAdapter {

    private final PreLoginCounts counts;
    private final long deadlineMillis;
    private InetAddress counted;
    private boolean entered;
    private ScheduledFuture<?> deadline;

    PreLoginGate(PreLoginCounts counts, long deadlineMillis) {
        this.counts = counts;
        this.deadlineMillis = deadlineMillis;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetAddress address = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        String over = counts.entered(address);
        if (over != null) {
            Disconnector.close(ctx.channel(), DisconnectReason.PRE_LOGIN_LIMIT, over);
            return;
        }
        counted = address;
        entered = true;
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

    private void leave() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
        if (entered) {
            entered = false;
            counts.left(counted);
        }
    }
}
