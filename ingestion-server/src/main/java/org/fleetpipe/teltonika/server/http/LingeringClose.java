package org.fleetpipe.teltonika.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * How a connection ends after an answer that closes it (a refusal, {@code Connection: close}): our
 * side is shut once the answer is out, so the client reads the answer and then the end; what it
 * still sends (a body we refused) is read and dropped, at most {@value #MAX_BYTES} bytes and
 * {@value #MAX_MILLIS} ms, then the connection closes. Closing at once with input unread would make
 * the kernel reset the connection, and the client could lose the answer.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {

    static final long MAX_BYTES = 64 * 1024;
    static final long MAX_MILLIS = 2_000;

    private long dropped;

    private LingeringClose() {
    }

    /** Ends the connection of {@code written} once that write is done. */
    static void after(ChannelFuture written) {
        Channel channel = written.channel();
        written.addListener(f -> {
            if (!f.isSuccess() || !channel.isActive() || !(channel instanceof DuplexChannel duplex)) {
                channel.close();
                return;
            }
            channel.pipeline().addFirst("lingering-close", new LingeringClose());
            duplex.shutdownOutput();
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, MAX_MILLIS, TimeUnit.MILLISECONDS);
            channel.config().setAutoRead(true);
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            dropped += bytes.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        if (dropped > MAX_BYTES) {
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // Nothing behind this handler is to see the dropped input.
    }
}
