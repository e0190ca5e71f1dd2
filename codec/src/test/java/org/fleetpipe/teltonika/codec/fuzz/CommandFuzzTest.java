package org.fleetpipe.teltonika.codec.fuzz;

import static org.fleetpipe.teltonika.codec.fuzz.FuzzChecks.SMALL;
import static org.fleetpipe.teltonika.codec.fuzz.FuzzChecks.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.testing.TcpStream;

/**
 * A Codec 12/13/14/15 body (codec id through quantity 2) as the TCP framer hands it over, the whole
 * input. Invariants: only {@code CodecException} escapes; the decoder moves no index; a decoded
 * frame is within the limits, decodes the same with the default limits, its text and toString
 * never throw, and it re-encodes to the body byte for byte; no buffer stays referenced.
 */
class CommandFuzzTest {

    private final CommandFrameDecoder commands = new CommandFrameDecoder(SMALL);
    private final CommandFrameDecoder commandsDefaults = new CommandFrameDecoder(DecodeLimits.DEFAULTS);

    @FuzzTest(maxDuration = "10m")
    void commandBody(byte[] data) {
        ByteBuf in = TcpStream.UNTRACKED.heapBuffer(Math.max(data.length, 1)).writeBytes(data);
        try {
            CommandFrame frame;
            try {
                frame = commands.decode(in);
            } catch (CodecException rejected) {
                frame = null;
            }
            check(in.readerIndex() == 0 && in.writerIndex() == data.length, "decoder moved the indices");
            if (frame != null) {
                check(frame.payloadLength() <= SMALL.maxFrameBytes(), "payload of %d bytes", frame.payloadLength());
                check(frame.equals(commandsDefaults.decode(in)), "default limits decode differently");
                frame.text();
                frame.toString();
                FuzzChecks.reencodesTo(frame, in);
            }
        } finally {
            int refCnt = in.refCnt();
            in.release();
            check(refCnt == 1, "input refCnt %d", refCnt);
        }
    }
}
