package org.fleetpipe.teltonika.server.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import java.net.InetSocketAddress;
import org.fleetpipe.teltonika.server.tcp.Transports;

/** The device UDP listener. */
public final class UdpServer {

    private Channel channel;
    private UdpPacketHandler handler;

    /**
     * Binds; datagrams are received whole up to {@code maxDatagramBytes} (Netty's default would cut
     * them at 2048 bytes), and one byte more, so an oversized datagram is seen as oversized.
     */
    public InetSocketAddress bind(EventLoopGroup group, String host, int port, int maxDatagramBytes,
                                  UdpPacketHandler handler) throws InterruptedException {
        this.handler = handler;
        channel = new Bootstrap()
                .group(group)
                .channel(Transports.datagramChannel())
                .option(ChannelOption.SO_RCVBUF, 4 * 1024 * 1024)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(maxDatagramBytes + 1))
                .handler(handler)
                .bind(host, port).sync().channel();
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops reading datagrams; those already read are still written and acknowledged. */
    public void stopReading() {
        if (channel != null) {
            handler.stopping();
            channel.eventLoop().submit(() -> channel.config().setAutoRead(false)).awaitUninterruptibly(5000);
        }
    }

    public void close() {
        if (channel != null) {
            channel.close().awaitUninterruptibly();
        }
    }
}
