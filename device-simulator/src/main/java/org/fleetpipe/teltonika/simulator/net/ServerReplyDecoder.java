package org.fleetpipe.teltonika.simulator.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;

/**
 * Cuts what a server sends a device out of the byte stream: first the login byte
 * ({@link LoginAnswer}), then 4-byte record counts ({@link RecordCountAck}) and command frames
 * ({@link DataFrame}, to be released by whoever handles it), in any split or coalescing.
 *
 * <p>A count and a frame are told apart by their first four bytes: a frame starts with the zero
 * preamble, and a count is never zero because the simulator never sends an empty packet.
 */
public final class ServerReplyDecoder extends ByteToMessageDecoder {

    private final TcpFrameReader frames = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private boolean loginAnswered;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!loginAnswered) {
            loginAnswered = true;
            out.add(new LoginAnswer(in.readUnsignedByte() == 0x01));
            return;
        }
        if (in.readableBytes() < 4) {
            return;
        }
        long word = in.getUnsignedInt(in.readerIndex());
        if (word != 0) {
            in.skipBytes(4);
            out.add(new RecordCountAck(word));
            return;
        }
        Frame frame;
        try {
            frame = frames.tryRead(in);
        } catch (CodecException e) {
            // Nothing after a broken frame can be trusted; dropping it also stops the same error
            // from being raised again when the closing channel decodes what is left.
            in.skipBytes(in.readableBytes());
            throw e;
        }
        if (frame instanceof DataFrame data) {
            out.add(data);
        }
    }
}
