package org.fleetpipe.teltonika.codec.fuzz;

import static org.fleetpipe.teltonika.codec.fuzz.FuzzChecks.SMALL;
import static org.fleetpipe.teltonika.codec.fuzz.FuzzChecks.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Crc16Ibm;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.TcpStream;
import org.fleetpipe.teltonika.codec.testing.ViewedPackets;

/**
 * The TCP path of a device connection: the stateless framer over a byte stream, then the AVL or
 * command decoder on every data frame it cuts.
 *
 * <p>Input layout (see FUZZING.md): byte 0 flags, byte 1 chunking, the rest the payload.
 * <ul>
 *   <li>flags bit 0: the payload is a frame <em>body</em>; the harness adds preamble, length and a
 *       correct CRC, so mutations reach the decoders instead of dying at the CRC check;</li>
 *   <li>flags bit 1: a login frame (a valid IMEI) goes first; bit 2: a ping goes last;</li>
 *   <li>chunking 0: one read; otherwise the stream is also fed as reads of {@code chunking & 0x7F}
 *       (+1) bytes, of random sizes up to that when bit 7 is set (seeded by the byte itself).</li>
 * </ul>
 *
 * <p>Invariants: only {@code CodecException} escapes; the framer consumes nothing when it returns
 * null or throws, and something when it returns a frame; frames and the error are the same however
 * the stream is split; every frame respects the limits; whatever decodes respects the limits,
 * decodes the same with the default limits, and re-encodes to its exact body; after every frame is
 * released, the input buffer's reference count is back to 1 (TcpStream checks its cumulations).
 */
class TcpFuzzTest {

    static final byte[] LOGIN = {0x00, 0x0F, '3', '5', '2', '0', '9', '3', '0', '8', '1', '4', '5', '2', '2', '5', '1'};

    private final TcpFrameReader reader = new TcpFrameReader(SMALL);
    private final AvlPacketDecoder avl = new AvlPacketDecoder(SMALL);
    private final AvlPacketDecoder avlDefaults = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
    private final CommandFrameDecoder commands = new CommandFrameDecoder(SMALL);

    @FuzzTest(maxDuration = "10m")
    void tcpStream(byte[] data) {
        int flags = data.length > 0 ? data[0] & 0xFF : 0;
        int chunking = data.length > 1 ? data[1] & 0xFF : 0;
        byte[] wire = wire(flags, FuzzChecks.tail(data, 2));

        List<String> whole = new ArrayList<>();
        String wholeError = readWhole(wire, whole);
        if (chunking != 0) {
            List<String> split = new ArrayList<>();
            String splitError = readSplit(wire, chunking, split);
            check(whole.equals(split), "frames differ when the stream is split:\n  whole %s\n  split %s", whole,
                    split);
            check(java.util.Objects.equals(wholeError, splitError), "error %s whole, %s split", wholeError,
                    splitError);
        }
    }

    static byte[] wire(int flags, byte[] payload) {
        ByteBuf out = TcpStream.UNTRACKED.heapBuffer(payload.length + 32);
        try {
            if ((flags & 2) != 0) {
                out.writeBytes(LOGIN);
            }
            if ((flags & 1) != 0) {
                out.writeInt(0).writeInt(payload.length).writeBytes(payload)
                        .writeInt(Crc16Ibm.compute(payload, 0, payload.length));
            } else {
                out.writeBytes(payload);
            }
            if ((flags & 4) != 0) {
                out.writeByte(0xFF);
            }
            return FuzzChecks.bytes(out);
        } finally {
            out.release();
        }
    }

    /** One read of the whole stream straight into the reader; returns the error's reason or null. */
    private String readWhole(byte[] wire, List<String> seen) {
        ByteBuf in = TcpStream.UNTRACKED.heapBuffer(Math.max(wire.length, 1)).writeBytes(wire);
        List<DataFrame> held = new ArrayList<>();
        String error = null;
        try {
            while (in.isReadable()) {
                int before = in.readerIndex();
                Frame frame;
                try {
                    frame = reader.tryRead(in);
                } catch (CodecException e) {
                    check(in.readerIndex() == before, "rejection moved the reader index");
                    error = e.reason().label();
                    break;
                }
                if (frame == null) {
                    check(in.readerIndex() == before, "null result consumed bytes");
                    break;
                }
                check(in.readerIndex() > before, "frame %s consumed nothing", frame);
                if (frame instanceof DataFrame d) {
                    held.add(d);
                    checkFrame(d);
                    decode(d);
                } else if (frame instanceof LoginFrame login) {
                    check(!login.text().isEmpty() && login.text().length() <= SMALL.maxLoginBytes(),
                            "login of %d chars", login.text().length());
                }
                seen.add(TcpStream.describe(frame));
            }
        } finally {
            for (DataFrame d : held) {
                d.release();
            }
        }
        int refCnt = in.refCnt();
        in.release();
        check(refCnt == 1, "input refCnt %d after every frame was released", refCnt);
        return error;
    }

    private String readSplit(byte[] wire, int chunking, List<String> seen) {
        Random sizes = new Random(chunking);
        int max = (chunking & 0x7F) + 1;
        try (TcpStream stream = TcpStream.untracked(reader)) {
            try {
                int at = 0;
                do {
                    int n = Math.min(wire.length - at, (chunking & 0x80) != 0 ? sizes.nextInt(max + 1) : max);
                    stream.feed(wire, at, n);
                    at += n;
                } while (at < wire.length);
            } catch (CodecException e) {
                seen.addAll(TcpStream.describe(stream.frames()));
                return e.reason().label();
            }
            seen.addAll(TcpStream.describe(stream.frames()));
            return null;
        }
    }

    private static void checkFrame(DataFrame d) {
        ByteBuf frame = d.content();
        int at = frame.readerIndex();
        check(frame.readableBytes() <= SMALL.maxFrameBytes(), "frame of %d bytes", frame.readableBytes());
        check(frame.getInt(at) == 0, "preamble not zero");
        check(frame.getUnsignedInt(at + 4) == d.bodyLength(), "length field disagrees with the body");
        check(d.bodyLength() >= 3, "body of %d bytes", d.bodyLength());
        check(d.codec().wire() == d.body().getUnsignedByte(d.body().readerIndex()), "codec byte disagrees");
    }

    private void decode(DataFrame d) {
        ByteBuf body = d.body();
        int reader0 = body.readerIndex();
        int writer0 = body.writerIndex();
        try {
            if (d.codec().isAvl()) {
                AvlPacket packet = avl.decode(body);
                FuzzChecks.withinLimits(packet, SMALL);
                check(packet.equals(avlDefaults.decode(body)), "default limits decode differently");
                FuzzChecks.reencodesTo(packet, body);
                check(ViewedPackets.read(avl.view(body)).equals(packet), "the cursor reads otherwise than decode");
            } else {
                CommandFrame command = commands.decode(body);
                FuzzChecks.reencodesTo(command, body);
            }
        } catch (CodecException rejected) {
            // refused: fine, and the in-place view must refuse it the same way
            if (d.codec().isAvl()) {
                try {
                    avl.view(body);
                    check(false, "view took a body decode refused: %s", rejected.getMessage());
                } catch (CodecException alsoRejected) {
                    check(alsoRejected.getMessage().equals(rejected.getMessage()), "view refused otherwise: %s",
                            alsoRejected.getMessage());
                }
            }
        }
        check(body.readerIndex() == reader0 && body.writerIndex() == writer0, "decoder moved the body's indices");
    }
}
