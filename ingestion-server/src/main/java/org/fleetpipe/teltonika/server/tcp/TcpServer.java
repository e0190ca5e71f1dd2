package org.fleetpipe.teltonika.server.tcp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;

/** The device TCP listener: bind, stop accepting, close every device connection. */
public final class TcpServer {

    private final ChannelGroup devices = new DefaultChannelGroup("devices", GlobalEventExecutor.INSTANCE);
    private Channel listener;

    /** {@code acceptLimit}: an {@link AcceptRateLimit} (shared by the listeners it caps together), or null. */
    public InetSocketAddress bind(EventLoopGroup boss, EventLoopGroup workers, String host, int port,
                                  TcpChannelInitializer initializer, AcceptRateLimit acceptLimit)
            throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(Transports.serverChannel())
                // Login bursts (a replica restart sends thousands at once); the kernel caps it at somaxconn.
                .option(ChannelOption.SO_BACKLOG, 8192)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new io.netty.channel.ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        devices.add(ch);
                        ch.pipeline().addLast(initializer);
                    }
                });
        if (acceptLimit != null) {
            bootstrap.handler(acceptLimit);
        }
        listener = bootstrap.bind(host, port).sync().channel();
        return (InetSocketAddress) listener.localAddress();
    }

    public void stopAccepting() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
    }

    /**
     * Stops reading from every device connection (frames already read are still handled and
     * acknowledged); returns once every event loop has applied it, so nothing new starts after.
     */
    public void stopReading(Duration timeout) {
        java.util.List<io.netty.util.concurrent.Future<?>> applied = new java.util.ArrayList<>();
        for (Channel ch : devices) {
            applied.add(ch.eventLoop().submit(() -> {
                ch.attr(FrameSequencer.DRAINING).set(Boolean.TRUE);
                ch.config().setAutoRead(false);
            }));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (io.netty.util.concurrent.Future<?> f : applied) {
            f.awaitUninterruptibly(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
        }
    }

    public int connections() {
        return devices.size();
    }

    /** Closes every device connection; returns once they are closed or the timeout passed. */
    public void closeAll(Duration timeout) {
        closeAll(Duration.ZERO, timeout);
    }

    /**
     * Closes every device connection, spread evenly over {@code window}, so that thousands of
     * devices do not all reconnect to the other replicas in the same second; returns once they
     * are closed or the timeout passed.
     */
    public void closeAll(Duration window, Duration timeout) {
        java.util.List<Channel> open = new java.util.ArrayList<>(devices);
        long step = open.isEmpty() ? 0 : window.toNanos() / open.size();
        for (int i = 0; i < open.size(); i++) {
            Channel ch = open.get(i);
            Runnable close = () -> {
                DeviceSession.of(ch).closing(DisconnectReason.SHUTDOWN);
                ch.close();
            };
            if (step == 0) {
                ch.eventLoop().execute(close);
            } else {
                ch.eventLoop().schedule(close, step * i, java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        }
        devices.newCloseFuture().awaitUninterruptibly(timeout.toMillis());
    }
}
