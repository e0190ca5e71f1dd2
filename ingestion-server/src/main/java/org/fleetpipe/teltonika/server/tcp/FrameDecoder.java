package org.fleetpipe.teltonika.server.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;

/**
 * Cuts the byte stream into frames. After the first framing error nothing more is decoded from
 * this connection: the boundaries can no longer be trusted, so later bytes must never be acked.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private final TcpFrameReader reader;
    private final FrameRejector rejector;
    private boolean failed;

    FrameDecoder(TcpFrameReader reader, FrameRejector rejector) {
        this.reader = reader;
        this.rejector = rejector;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            Frame frame = reader.tryRead(in);
            if (frame != null) {
                out.add(frame);
            }
        } catch (CodecException e) {
            failed = true;
            rejector.reject(ctx.channel(), e, in);
            in.skipBytes(in.readableBytes());
        }
    }
}
