package org.fleetpipe.teltonika.server.tcp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.testing.RecordingLeakDetector;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;

/**
 * The login path of a device connection as a host without credentials reaches it: bytes into the
 * real TCP pipeline ({@link TcpChannelInitializer}: connection tracker, pre-login gate, framer,
 * sequencer, login, telemetry, commands) on an EmbeddedChannel, before, during and after a login,
 * with an admission that admits, refuses or fails, and a telemetry writer that stores or fails.
 *
 * <p>Input layout (see FUZZING.md): byte 0 flags, byte 1 chunking, the rest the bytes the host sends.
 * <ul>
 *   <li>flags bit 0: a valid login frame goes first (so mutations also reach what follows a login);</li>
 *   <li>bits 1-2: admission admits (0), refuses with {@code denied} (1), fails like a Redis error (2, 3);</li>
 *   <li>bit 3: the telemetry writes fail (Redis down) instead of storing every record;</li>
 *   <li>chunking 0: one read; otherwise reads of {@code (chunking & 0x7F) + 1} bytes.</li>
 * </ul>
 *
 * <p>Invariants: no exception reaches the end of the pipeline (none is closed {@code io-error});
 * the first byte the server writes is the login answer and it writes it once; nothing is written
 * to the telemetry writer and no ACK is sent unless that answer was {@code 01}; after {@code 00}
 * nothing more is written and the connection is closed; every ACK answers a stored packet, in
 * order, with its record count; after the connection ends no session, registry entry or pending
 * call is left, and no buffer leaked.
 */
class LoginPathFuzzTest {

    static final byte[] LOGIN = {0x00, 0x0F, '3', '5', '2', '0', '9', '3', '0', '8', '1', '4', '5', '2', '2', '5', '1'};

    private final PipelineHarness harness;
    private volatile int admissionMode;

    LoginPathFuzzTest() {
        Admission admission = imei -> switch (admissionMode) {
            case 0 -> CompletableFuture.completedFuture(null);
            case 1 -> CompletableFuture.completedFuture("denied");
            default -> CompletableFuture.failedFuture(new IllegalStateException("redis down"));
        };
        // Small limits, so the fuzzer reaches them; a login deadline no input outlives.
        harness = new PipelineHarness(Map.of("limits.max-frame-bytes", 2048, "limits.max-queued-frames", 4,
                "timeouts.login", "10m"), admission);
    }

    @FuzzTest(maxDuration = "10m")
    void loginPath(byte[] data) {
        int flags = data.length > 0 ? data[0] & 0xFF : 0;
        int chunking = data.length > 1 ? data[1] & 0xFF : 0;
        byte[] payload = data.length > 2 ? Arrays.copyOfRange(data, 2, data.length) : new byte[0];
        byte[] wire = (flags & 1) == 0 ? payload : concat(LOGIN, payload);
        admissionMode = (flags >> 1) & 3;
        boolean writesFail = (flags & 8) != 0;
        double ioErrorsBefore = harness.closed("io-error");

        EmbeddedChannel channel = harness.connectUntracked();
        Exchange exchange = new Exchange(writesFail);
        try {
            int step = chunking == 0 ? Math.max(1, wire.length) : (chunking & 0x7F) + 1;
            for (int from = 0; from < wire.length && channel.isOpen(); from += step) {
                byte[] read = Arrays.copyOfRange(wire, from, Math.min(wire.length, from + step));
                channel.writeInbound(channel.alloc().buffer(read.length).writeBytes(read));
                exchange.settle(channel);
            }
            exchange.settle(channel);
        } finally {
            channel.finishAndReleaseAll();
            harness.writer.clear();
            harness.deadLetters.clear();
        }
        exchange.settle(channel);
        check(harness.closed("io-error") == ioErrorsBefore, "an exception reached the end of the pipeline");
        check(harness.sessions.size() == 0, "a session outlived its connection");
        check(harness.devices.owner("352093081452251") == null, "a registry entry outlived its connection");
        check(harness.inFlight.pending() == 0, "%d calls still pending after the connection ended",
                harness.inFlight.pending());
        List<String> leaks = RecordingLeakDetector.drain();
        check(leaks.isEmpty(), "buffer leak: %s", leaks);
    }

    /** What the server wrote and stored for one connection, checked as it goes. */
    private final class Exchange {
        private final boolean writesFail;
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private int settledWrites;
        private int storedPackets;
        private int acked;

        Exchange(boolean writesFail) {
            this.writesFail = writesFail;
        }

        /** Lets "Redis" answer every write so far and runs the channel's tasks until nothing moves. */
        void settle(EmbeddedChannel channel) {
            for (int round = 0; round < 1_000; round++) {
                channel.runPendingTasks();
                // The answer is written before the packet behind it is handed on: read it first.
                boolean moved = readOutbound(channel);
                List<FakeTelemetryWriter.Write> writes = harness.writer.writes();
                for (; settledWrites < writes.size(); settledWrites++) {
                    check(loginAnswer() == 0x01, "a packet was written for a connection not logged in (answer %s)",
                            loginAnswer());
                    FakeTelemetryWriter.Write write = writes.get(settledWrites);
                    if (writesFail) {
                        write.fail("redis down");
                    } else {
                        write.succeed();
                        storedPackets++;
                    }
                    moved = true;
                }
                if (!moved && !channel.hasPendingTasks()) {
                    return;
                }
            }
            throw new AssertionError("the pipeline never settled");
        }

        private boolean readOutbound(EmbeddedChannel channel) {
            boolean any = false;
            Object msg;
            while ((msg = channel.readOutbound()) != null) {
                any = true;
                if (!(msg instanceof ByteBuf buf)) {
                    io.netty.util.ReferenceCountUtil.release(msg);
                    throw new AssertionError("the server wrote a " + msg.getClass().getSimpleName());
                }
                try {
                    written.writeBytes(ByteBufUtil.getBytes(buf));
                } finally {
                    buf.release();
                }
            }
            byte[] out = written.toByteArray();
            if (out.length == 0) {
                return any;
            }
            check(out[0] == 0x00 || out[0] == 0x01, "the first byte written is %02x, not a login answer", out[0]);
            if (out[0] == 0x00) {
                check(out.length == 1, "%d bytes written after a refused login", out.length - 1);
                check(harness.writer.count() == 0, "a packet written after a refused login");
            } else {
                // With no command queued (DeviceCommands.NONE), all that follows are 4-byte ACKs.
                check((out.length - 1) % 4 == 0, "after the login answer, %d bytes: not whole ACKs", out.length - 1);
                int acks = (out.length - 1) / 4;
                check(acks <= storedPackets, "%d ACKs for %d stored packets", acks, storedPackets);
                for (; acked < acks; acked++) {
                    int at = 1 + 4 * acked;
                    int count = ((out[at] & 0xFF) << 24) | ((out[at + 1] & 0xFF) << 16) | ((out[at + 2] & 0xFF) << 8)
                            | (out[at + 3] & 0xFF);
                    int records = harness.writer.write(acked).packet().size();
                    check(count == records, "ACK %d says %d records, the packet had %d", acked, count, records);
                }
            }
            return any;
        }

        private int loginAnswer() {
            byte[] out = written.toByteArray();
            return out.length == 0 ? -1 : out[0];
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static void check(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new AssertionError(String.format(format, args));
        }
    }
}
