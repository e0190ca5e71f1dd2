package org.fleetpipe.teltonika.server.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import org.fleetpipe.teltonika.server.tcp.Transports;

/** The device UDP listener. */
public final class UdpServer {

    private Channel channel;

    public InetSocketAddress bind(EventLoopGroup group, String host, int port, UdpPacketHandler handler)
            throws InterruptedException {
        channel = new Bootstrap()
                .group(group)
                .channel(Transports.datagramChannel())
                .option(ChannelOption.SO_RCVBUF, 4 * 1024 * 1024)
                .handler(handler)
                .bind(host, port).sync().channel();
        return (InetSocketAddress) channel.localAddress();
    }

    public void close() {
        if (channel != null) {
            channel.close().awaitUninterruptibly();
        }
    }
}
