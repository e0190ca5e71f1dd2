package org.fleetpipe.teltonika.server.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.server.session.DeviceSession;

/**
 * Cuts the byte stream into frames. After the first framing error nothing more is decoded from
 * this connection: the boundaries can no longer be trusted, so later bytes must never be acked.
 * Before login only one login frame may come, after at most {@value #MAX_KEEP_ALIVES_BEFORE_LOGIN}
 * keep-alive bytes ({@code 0xFF}, which real trackers send before their IMEI): more keep-alives, a
 * data frame's preamble or anything behind the login frame closes the connection on its first
 * bytes, so nothing but a login is ever buffered for a connection that has not logged in. After the
 * login a frame begun must be whole within the frame timeout, so nobody holds a buffer by sending a
 * frame a byte at a time (the read-idle timeout alone would let a byte a minute do it).
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private static final int PING = 0xFF;
    /** Keep-alive bytes skipped before the login; the login deadline bounds how slowly they come. */
    static final int MAX_KEEP_ALIVES_BEFORE_LOGIN = 16;

    private final TcpFrameReader reader;
    private final FrameRejector rejector;
    private final Duration frameTimeout;
    private ScheduledFuture<?> frameDeadline;
    private boolean failed;
    private boolean loginRead;
    private int keepAlivesBeforeLogin;

    FrameDecoder(TcpFrameReader reader, FrameRejector rejector, Duration frameTimeout) {
        this.reader = reader;
        this.rejector = rejector;
        this.frameTimeout = frameTimeout;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        boolean loggedIn = DeviceSession.of(ctx.channel()).isLoggedIn();
        if (!loggedIn) {
            String refusal = beforeLogin(in);
            if (refusal != null) {
                failed = true;
                // Dropped before the close: closing may release the cumulation (EmbeddedChannel closes at once).
                in.skipBytes(in.readableBytes());
                rejector.beforeLogin(ctx.channel(), refusal);
                return;
            }
        }
        try {
            Frame frame = reader.tryRead(in);
            if (frame != null) {
                loginRead |= frame instanceof LoginFrame;
                out.add(frame);
                stopFrameDeadline();
            } else if (loggedIn && in.isReadable() && frameDeadline == null) {
                // A frame has begun: the time it may take counts from its first bytes.
                frameDeadline = ctx.executor().schedule(() -> frameTimedOut(ctx), frameTimeout.toNanos(),
                        TimeUnit.NANOSECONDS);
            }
        } catch (CodecException e) {
            failed = true;
            // Taken out of the cumulation, and kept alive, before the close can release it.
            ByteBuf rest = in.readRetainedSlice(in.readableBytes());
            try {
                rejector.reject(ctx.channel(), e, rest);
            } finally {
                rest.release();
            }
        }
    }

    private void frameTimedOut(ChannelHandlerContext ctx) {
        frameDeadline = null;
        ByteBuf buffered = internalBuffer();
        if (failed || !buffered.isReadable() || !ctx.channel().isActive()) {
            return;
        }
        failed = true;
        // Taken out of the cumulation, and kept alive, before the close can release it.
        ByteBuf partial = buffered.readRetainedSlice(buffered.readableBytes());
        try {
            rejector.incomplete(ctx.channel(), partial, frameTimeout);
        } finally {
            partial.release();
        }
    }

    private void stopFrameDeadline() {
        if (frameDeadline != null) {
            frameDeadline.cancel(false);
            frameDeadline = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stopFrameDeadline();
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        stopFrameDeadline();
    }

    /** Why these bytes may not come before login, or null when they may start a login frame. */
    private String beforeLogin(ByteBuf in) {
        if (!in.isReadable()) {
            return null;
        }
        if (loginRead) {
            // A device waits for the login answer before it sends anything else.
            return "bytes behind the login frame before its answer";
        }
        while (in.isReadable() && in.getUnsignedByte(in.readerIndex()) == PING) {
            if (++keepAlivesBeforeLogin > MAX_KEEP_ALIVES_BEFORE_LOGIN) {
                return "more than " + MAX_KEEP_ALIVES_BEFORE_LOGIN + " keep-alive bytes before login";
            }
            in.skipBytes(1);
        }
        if (!in.isReadable()) {
            return null;
        }
        int start = in.readerIndex();
        int first = in.getUnsignedByte(start);
        if (first == 0 && in.readableBytes() >= 2 && in.getUnsignedByte(start + 1) == 0) {
            return "a data frame before login";
        }
        return null;
    }
}
