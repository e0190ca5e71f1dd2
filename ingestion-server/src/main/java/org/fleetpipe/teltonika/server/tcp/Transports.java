package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;

/** Native epoll on Linux when its library loads, NIO everywhere else. */
public final class Transports {

    private static final boolean EPOLL = Epoll.isAvailable() && !Boolean.getBoolean("teltonika.nio");

    private Transports() {
    }

    public static String name() {
        return EPOLL ? "epoll" : "nio";
    }

    /**
     * Why a Linux host runs on NIO although nobody asked for it (the native library did not load:
     * a missing system library such as libdl.so.2, a noexec temporary directory), or empty. NIO
     * costs more CPU and allocation per packet, so an operator should hear of it.
     */
    public static Optional<String> unexpectedFallback() {
        return unexpectedFallback(EPOLL, System.getProperty("os.name", ""), Boolean.getBoolean("teltonika.nio"),
                EPOLL ? null : Epoll.unavailabilityCause());
    }

    static Optional<String> unexpectedFallback(boolean epoll, String osName, boolean nioChosen, Throwable cause) {
        if (epoll || nioChosen || !osName.toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.empty();
        }
        return Optional.of(cause == null ? "unknown" : cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    public static EventLoopGroup group(int threads, ThreadFactory threadFactory) {
        IoHandlerFactory factory = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, factory);
    }

    public static Class<? extends ServerSocketChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** Outgoing connections made on the device event loops (the telemetry writer's to Redis). */
    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public static Class<? extends DatagramChannel> datagramChannel() {
        return EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }
}
