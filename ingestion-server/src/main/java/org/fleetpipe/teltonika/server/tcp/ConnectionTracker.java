package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/** Counts connections, refuses those over the caps (in all, per address), counts each close by its reason. */
@Sharable
final class ConnectionTracker extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<Boolean> COUNTED = AttributeKey.valueOf(ConnectionTracker.class, "counted");

    private final IngestionMetrics metrics;
    private final int maxConnections;
    private final AddressLimiter addresses;

    ConnectionTracker(IngestionMetrics metrics, int maxConnections, AddressLimiter addresses) {
        this.metrics = metrics;
        this.maxConnections = maxConnections;
        this.addresses = addresses;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connectionOpened();
        if (metrics.activeConnections() > maxConnections) {
            Disconnector.close(ctx.channel(), DisconnectReason.CONNECTION_LIMIT,
                    "more than " + maxConnections + " connections");
            return;
        }
        String overAddressCap = addresses.opened(address(ctx));
        if (overAddressCap != null) {
            Disconnector.close(ctx.channel(), DisconnectReason.ADDRESS_LIMIT, overAddressCap);
            return;
        }
        ctx.channel().attr(COUNTED).set(Boolean.TRUE);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        metrics.connectionClosed(DeviceSession.of(ctx.channel()).closeReason().label());
        if (ctx.channel().hasAttr(COUNTED)) {
            addresses.closed(address(ctx));
        }
        ctx.fireChannelInactive();
    }

    private static InetAddress address(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }
}
