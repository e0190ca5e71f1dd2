package org.fleetpipe.teltonika.server.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.TcpFrameWriter;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketEncoder;

/**
 * Device-side bytes built with the codec's own encoders, as plain arrays: tests hand them to a
 * socket or wrap them for an EmbeddedChannel, and no buffer outlives the call that made it.
 */
public final class Frames {

    /** Preamble and data field length. */
    public static final int HEADER_BYTES = 8;
    public static final int CRC_BYTES = 4;

    private Frames() {
    }

    public static byte[] login(String imeiText) {
        return encode(out -> Acks.writeLoginRequest(out, imeiText));
    }

    public static byte[] avl(AvlPacket packet) {
        return encode(out -> AvlPacketEncoder.writeTcpFrame(out, packet));
    }

    public static byte[] command(CommandFrame frame) {
        return encode(out -> CommandFrameEncoder.writeTcpFrame(out, frame));
    }

    public static byte[] udp(UdpPacket packet) {
        return encode(out -> UdpPacketEncoder.writeDatagram(out, packet));
    }

    /** Wraps any body (codec id .. number of data 2) into preamble, length and a correct CRC. */
    public static byte[] tcpFrame(byte[] body) {
        return encode(out -> {
            int start = TcpFrameWriter.begin(out);
            out.writeBytes(body);
            TcpFrameWriter.end(out, start);
        });
    }

    /** Codec id .. number of data 2 of a whole TCP frame. */
    public static byte[] body(byte[] frame) {
        return Arrays.copyOfRange(frame, HEADER_BYTES, frame.length - CRC_BYTES);
    }

    /** The same frame with one bit of the CRC field changed, so only the CRC is wrong. */
    public static byte[] withBadCrc(byte[] frame) {
        byte[] copy = frame.clone();
        copy[copy.length - 1] ^= 0x01;
        return copy;
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    public static byte[] repeat(byte[] part, int times) {
        byte[][] parts = new byte[times][];
        Arrays.fill(parts, part);
        return concat(parts);
    }

    private static byte[] encode(Consumer<ByteBuf> writer) {
        ByteBuf out = Unpooled.buffer();
        try {
            writer.accept(out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }
}
