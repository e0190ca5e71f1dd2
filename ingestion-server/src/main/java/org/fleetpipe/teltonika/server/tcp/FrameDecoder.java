package org.fleetpipe.teltonika.server.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/**
 * Cuts the byte stream into frames. After the first framing error nothing more is decoded from
 * this connection: the boundaries can no longer be trusted, so later bytes must never be acked.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private final TcpFrameReader reader;
    private final FrameDeadLetters deadLetters;
    private final IngestionMetrics metrics;
    private boolean failed;

    FrameDecoder(TcpFrameReader reader, FrameDeadLetters deadLetters, IngestionMetrics metrics) {
        this.reader = reader;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
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
            String reason = e.reason().label();
            metrics.frameRejected(reason);
            DeviceSession session = DeviceSession.of(ctx.channel());
            deadLetters.record(session.isLoggedIn() ? session.imeiText() : null, reason, e.getMessage(), in);
            in.skipBytes(in.readableBytes());
            Disconnector.close(ctx.channel(), DisconnectReason.REJECTED_FRAME, e.getMessage());
        }
    }
}
