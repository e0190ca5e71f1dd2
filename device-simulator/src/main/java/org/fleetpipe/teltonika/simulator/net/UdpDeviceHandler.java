package org.fleetpipe.teltonika.simulator.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands datagrams arriving on a device's UDP socket to its {@link UdpDevice}; releases them after. */
final class UdpDeviceHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    private static final Logger LOG = LoggerFactory.getLogger(UdpDeviceHandler.class);

    private final UdpDevice device;

    UdpDeviceHandler(UdpDevice device) {
        this.device = device;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket datagram) {
        device.datagramReceived(datagram);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // UDP has no session to lose (an ICMP "port unreachable" lands here): the ACK timeout resends.
        LOG.debug("imei={} UDP socket error: {}", device.imei(), cause.toString());
    }
}
