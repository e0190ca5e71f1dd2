package org.fleetpipe.teltonika.benchmarks;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * A TCP server that does nothing but what every Teltonika server must: answer the login with
 * {@code 0x01} and each AVL frame with its record count, at once, storing nothing. Run beside the
 * device simulator, its CPU per record is the floor the transport sets on this machine (the
 * kernel's share of a read and a small write per packet), which no work in the real server's
 * codec or writer can go under. Usage: {@code AckOnlyServer host port [epoll|io_uring] [threads]}.
 */
public final class AckOnlyServer {

    private AckOnlyServer() {
    }

    public static void main(String[] args) throws InterruptedException {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        boolean uring = args.length > 2 && args[2].equals("io_uring");
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : Runtime.getRuntime().availableProcessors();
        IoHandlerFactory io = uring ? IoUringIoHandler.newFactory() : EpollIoHandler.newFactory();
        Class<? extends ServerChannel> channel = uring ? IoUringServerSocketChannel.class
                : EpollServerSocketChannel.class;
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(threads, io);
        Channel server = new ServerBootstrap().group(boss, workers).channel(channel)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Acker());
                    }
                })
                .bind(host, port).sync().channel();
        System.out.println("ack-only server on " + host + ":" + port + " (" + (uring ? "io_uring" : "epoll") + ", "
                + threads + " threads)");
        server.closeFuture().sync();
    }

    /** Cuts the login, then AVL frames (preamble, length, body, CRC), and answers each at once. */
    private static final class Acker extends ByteToMessageDecoder {
        private boolean loggedIn;

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (true) {
                int at = in.readerIndex();
                if (!loggedIn) {
                    if (in.readableBytes() < 2 || in.readableBytes() < 2 + in.getUnsignedShort(at)) {
                        return;
                    }
                    in.skipBytes(2 + in.getUnsignedShort(at));
                    loggedIn = true;
                    ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(1), ctx.voidPromise());
                    continue;
                }
                if (in.readableBytes() < 8) {
                    return;
                }
                long length = in.getUnsignedInt(at + 4);
                if (length < 2 || length > 1 << 20) {
                    ctx.close();
                    return;
                }
                if (in.readableBytes() < 12 + length) {
                    return;
                }
                int records = in.getUnsignedByte(at + 9);
                in.skipBytes((int) (12 + length));
                ctx.writeAndFlush(ctx.alloc().buffer(4).writeInt(records), ctx.voidPromise());
            }
        }
    }
}
