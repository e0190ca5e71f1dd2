package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/** Counts connections, refuses those over the cap, and counts each close by its reason. */
@Sharable
final class ConnectionTracker extends ChannelInboundHandlerAdapter {

    private final IngestionMetrics metrics;
    private final int maxConnections;

    ConnectionTracker(IngestionMetrics metrics, int maxConnections) {
        this.metrics = metrics;
        this.maxConnections = maxConnections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connectionOpened();
        if (metrics.activeConnections() > maxConnections) {
            Disconnector.close(ctx.channel(), DisconnectReason.CONNECTION_LIMIT,
                    "more than " + maxConnections + " connections");
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        metrics.connectionClosed(DeviceSession.of(ctx.channel()).closeReason());
        ctx.fireChannelInactive();
    }
}
