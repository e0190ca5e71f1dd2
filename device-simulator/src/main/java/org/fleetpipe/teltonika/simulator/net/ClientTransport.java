package org.fleetpipe.teltonika.simulator.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Native epoll on Linux when its library loads, NIO elsewhere: the same choice the server makes. */
public final class ClientTransport {

    private static final boolean EPOLL = Epoll.isAvailable() && !Boolean.getBoolean("teltonika.nio");

    private ClientTransport() {
    }

    public static String name() {
        return EPOLL ? "epoll" : "nio";
    }

    /** The one group all simulated devices share; daemon threads so a stuck run cannot keep the JVM up. */
    public static EventLoopGroup group(int threads) {
        IoHandlerFactory factory = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("device", true), factory);
    }

    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public static Class<? extends DatagramChannel> datagramChannel() {
        return EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }
}
