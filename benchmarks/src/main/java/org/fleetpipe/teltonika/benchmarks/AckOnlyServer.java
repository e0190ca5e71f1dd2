package org.fleetpipe.teltonika.benchmarks;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A TCP server that does nothing but what every Teltonika server must: answer the login with
 * {@code 0x01} and each AVL frame with its record count, at once, storing nothing. Run beside the
 * device simulator, its CPU per record is the floor the transport sets on this machine (the
 * kernel's share of a read and a small write per packet), which no work in the real server's
 * codec or writer can go under.
 *
 * <p>With a Redis port, each frame is answered only once Redis answered as many {@code PUBLISH}es
 * of a {@value #FORWARDED_BYTES}-byte payload (to no subscriber) as it holds records, sent on a
 * connection of the frame's event loop at the end of its round: the real server's traffic to Redis
 * (about as many bytes per record as its XADDs, a short answer each) with none of its work, so the
 * floor includes the Redis leg of the transport, whose kernel work loopback charges to the sender.
 * Usage: {@code AckOnlyServer host port [epoll|io_uring] [threads] [redis port]}.
 */
public final class AckOnlyServer {

    private AckOnlyServer() {
    }

    public static void main(String[] args) throws InterruptedException {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        boolean uring = args.length > 2 && args[2].equals("io_uring");
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : Runtime.getRuntime().availableProcessors();
        int redisPort = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        IoHandlerFactory io = uring ? IoUringIoHandler.newFactory() : EpollIoHandler.newFactory();
        Class<? extends ServerChannel> channel = uring ? IoUringServerSocketChannel.class
                : EpollServerSocketChannel.class;
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(threads, io);
        // Connected before any device: each loop's own connection, read-only from then on.
        Map<EventExecutor, Forwarder> forwarders = null;
        if (redisPort != 0) {
            forwarders = new IdentityHashMap<>();
            for (EventExecutor loop : workers) {
                forwarders.put(loop, new Forwarder((EventLoop) loop, new InetSocketAddress(host, redisPort), uring));
            }
        }
        Map<EventExecutor, Forwarder> forwarding = forwarders;
        Channel server = new ServerBootstrap().group(boss, workers).channel(channel)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Acker(forwarding == null ? null : forwarding.get(ch.eventLoop())));
                    }
                })
                .bind(host, port).sync().channel();
        System.out.println("ack-only server on " + host + ":" + port + " (" + (uring ? "io_uring" : "epoll") + ", "
                + threads + " threads" + (redisPort == 0 ? "" : ", forwarding to Redis on port " + redisPort) + ")");
        server.closeFuture().sync();
    }

    /** Payload bytes of one forwarded PUBLISH: with its framing, about an XADD of the e2e entry. */
    static final int FORWARDED_BYTES = 290;

    /** Cuts the login, then AVL frames (preamble, length, body, CRC), and answers each at once or once forwarded. */
    private static final class Acker extends ByteToMessageDecoder {
        /** The channel's loop's Redis connection; null: answer at once. */
        private final Forwarder forwarder;
        private boolean loggedIn;

        Acker(Forwarder forwarder) {
            this.forwarder = forwarder;
        }

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
                if (forwarder == null) {
                    ctx.writeAndFlush(ctx.alloc().buffer(4).writeInt(records), ctx.voidPromise());
                } else {
                    forwarder.forward(ctx, records);
                }
            }
        }
    }

    /** One event loop's Redis connection: frames' PUBLISHes out, their answers counted back in order. */
    private static final class Forwarder extends ChannelInboundHandlerAdapter {
        private static final byte[] PUBLISH = RespCommand.encode(
                List.of("PUBLISH", "ack-floor-void", "x".repeat(FORWARDED_BYTES)));

        private record Waiting(ChannelHandlerContext device, int records) {
        }

        private final EventLoop loop;
        private final Channel channel;
        private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        private ByteBuf gathered;
        private boolean flushQueued;
        /** Answers (":0\r\n", 4 bytes each) counted toward the oldest waiting frame. */
        private long answerBytes;

        Forwarder(EventLoop loop, InetSocketAddress redis, boolean uring) {
            this.loop = loop;
            this.channel = new Bootstrap().group(loop)
                    .channel(uring ? IoUringSocketChannel.class : EpollSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true).handler(this).connect(redis).syncUninterruptibly().channel();
        }

        void forward(ChannelHandlerContext device, int records) {
            if (gathered == null) {
                gathered = channel.alloc().directBuffer(64 * 1024);
            }
            for (int i = 0; i < records; i++) {
                gathered.writeBytes(PUBLISH);
            }
            waiting.add(new Waiting(device, records));
            if (!flushQueued) {
                flushQueued = true;
                loop.execute(this::roundEnded);
            }
        }

        private void roundEnded() {
            flushQueued = false;
            ByteBuf out = gathered;
            gathered = null;
            channel.writeAndFlush(out, channel.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            answerBytes += in.readableBytes();
            in.release();
            Waiting head;
            while ((head = waiting.peek()) != null && answerBytes >= 4L * head.records()) {
                answerBytes -= 4L * head.records();
                waiting.poll();
                head.device().writeAndFlush(head.device().alloc().buffer(4).writeInt(head.records()),
                        head.device().voidPromise());
            }
        }
    }
}
