package org.fleetpipe.teltonika.codec.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Arrays;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.TcpStream;

/**
 * Invariants the fuzz targets share. A violated one throws {@link AssertionError}, which Jazzer
 * reports as a finding (anything but a {@code CodecException} escaping a decoder is one too).
 */
final class FuzzChecks {

    /** Small limits, so the fuzzer reaches every limit check with short inputs. */
    static final DecodeLimits SMALL = new DecodeLimits(2048, 50, 64, 256, 64);

    private FuzzChecks() {
    }

    /** A decoded packet never holds more than the limits allowed the decoder to allocate. */
    static void withinLimits(AvlPacket packet, DecodeLimits limits) {
        check(packet.size() <= limits.maxRecords(), "records %d > %d", packet.size(), limits.maxRecords());
        for (AvlRecord r : packet.records()) {
            check(r.io().size() <= limits.maxIoPerRecord(), "IO per record %d > %d", r.io().size(),
                    limits.maxIoPerRecord());
            for (IoElement e : r.io()) {
                if (e instanceof IoElement.Variable v) {
                    check(v.length() <= limits.maxVariableIoBytes(), "variable IO %d > %d bytes", v.length(),
                            limits.maxVariableIoBytes());
                }
            }
        }
    }

    /** The body an AVL packet re-encodes to must be the body it was decoded from, byte for byte. */
    static void reencodesTo(AvlPacket packet, ByteBuf body) {
        ByteBuf out = TcpStream.UNTRACKED.heapBuffer(body.readableBytes());
        try {
            AvlPacketEncoder.writeBody(out, packet);
            same(body, out, "AVL body");
        } finally {
            out.release();
        }
    }

    static void reencodesTo(CommandFrame frame, ByteBuf body) {
        ByteBuf out = TcpStream.UNTRACKED.heapBuffer(body.readableBytes());
        try {
            CommandFrameEncoder.writeBody(out, frame);
            same(body, out, "command body");
        } finally {
            out.release();
        }
    }

    static void same(ByteBuf expected, ByteBuf actual, String what) {
        if (!ByteBufUtil.equals(expected, actual)) {
            throw new AssertionError(what + " does not round-trip:\n  in  " + Hex.of(expected) + "\n  out "
                    + Hex.of(actual));
        }
    }

    static void check(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new AssertionError(String.format(format, args));
        }
    }

    static byte[] bytes(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf);
    }

    static byte[] tail(byte[] data, int from) {
        return from >= data.length ? new byte[0] : Arrays.copyOfRange(data, from, data.length);
    }
}
