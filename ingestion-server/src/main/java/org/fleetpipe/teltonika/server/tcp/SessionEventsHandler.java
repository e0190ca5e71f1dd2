package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Last in the pipeline: timeouts, errors, and the cleanup when a connection ends. */
final class SessionEventsHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(SessionEventsHandler.class);

    private final SessionTable sessions;
    private final ConnectionRegistry registry;
    private final DeviceCommands commands;
    private final IngestionMetrics metrics;
    private final boolean logSessions;

    SessionEventsHandler(SessionTable sessions, ConnectionRegistry registry, DeviceCommands commands,
                         IngestionMetrics metrics, boolean logSessions) {
        this.logSessions = logSessions;
        this.sessions = sessions;
        this.registry = registry;
        this.commands = commands;
        this.metrics = metrics;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            // Only logged-in connections have a read-idle timer; before login PreLoginGate's deadline applies.
            Disconnector.close(ctx.channel(), DisconnectReason.IDLE_TIMEOUT, "no data within the read-idle timeout");
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        // Nothing should reach here; release rather than let Netty log a leak later.
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof javax.net.ssl.SSLException || cause.getCause() instanceof javax.net.ssl.SSLException) {
            // Plain text on the TLS port, a failed handshake, a client without our CA: common, not ours to fix.
            LOG.debug("TLS failure remote={}: {}", ctx.channel().remoteAddress(), cause.toString());
            Disconnector.close(ctx.channel(), DisconnectReason.TLS_FAILURE, "TLS: " + cause.getMessage());
            return;
        }
        if (cause instanceof IOException) {
            LOG.debug("device connection error remote={}: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            LOG.warn("unexpected error on a device connection remote={}", ctx.channel().remoteAddress(), cause);
        }
        Disconnector.close(ctx.channel(), DisconnectReason.IO_ERROR, cause.toString());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        DeviceSession session = DeviceSession.of(ctx.channel());
        if (session.isLoggedIn()) {
            commands.disconnected(session.imei(), ctx.channel());
        }
        // Release only when no newer local connection of the device replaced this one: the entry
        // then names this instance on behalf of the newer connection.
        if (session.isLoggedIn() && sessions.unregister(session.imei(), ctx.channel())) {
            registry.releaseIfOwner(session.imei(), ctx.channel().id().asLongText())
                    .whenComplete((released, error) -> {
                if (error == null) {
                    metrics.registryRelease(released);
                } else {
                    metrics.redisError("registry-release");
                    LOG.warn("could not release the registry entry imei={}; the janitor evicts it if this instance "
                            + "dies, and the next login overwrites it: {}", session.imeiText(), error.toString());
                }
            });
        }
        if (session.isLoggedIn() && logSessions) {
            LOG.info("device disconnected imei={} remote={} reason={}", session.imeiText(), session.remote(),
                    session.closeReason().label());
        }
        ctx.fireChannelInactive();
    }
}
