package org.fleetpipe.teltonika.simulator.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands what {@link ServerReplyDecoder} cut from a session to its {@link TcpDevice}. */
final class TcpDeviceHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(TcpDeviceHandler.class);

    private final TcpDevice device;

    TcpDeviceHandler(TcpDevice device) {
        this.device = device;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof LoginAnswer answer) {
            device.loginAnswered(ctx.channel(), answer.accepted());
        } else if (msg instanceof RecordCountAck ack) {
            device.ackArrived(ctx.channel(), ack.records());
        } else if (msg instanceof DataFrame frame) {
            device.commandReceived(ctx.channel(), frame);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        device.disconnected(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Framing from the server can no longer be trusted: reconnect, as a tracker would.
        LOG.debug("imei={} session error, closing: {}", device.imei(), cause.toString());
        ctx.close();
    }
}
