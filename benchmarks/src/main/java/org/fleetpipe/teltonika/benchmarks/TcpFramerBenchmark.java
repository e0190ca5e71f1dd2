package org.fleetpipe.teltonika.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The server's framing loop: {@link TcpFrameReader#tryRead} until it needs more bytes, over one
 * pooled direct buffer holding {@value #FRAMES} coalesced data frames (as one big socket read
 * would), each frame released as the pipeline eventually does. Each frame's CRC is checked and
 * each becomes a retained slice, so this is the per-frame cost before AVL decoding.
 *
 * <p>One operation is one frame ({@code @OperationsPerInvocation}); the auxiliary counter
 * {@code bytes} gives frame bytes/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TcpFramerBenchmark {

    static final int FRAMES = 100;

    /** Records per frame (Codec 8, realistic). */
    @Param({"1", "10"})
    public int records;

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private ByteBuf stream;
    private int streamBytes;

    @Setup(Level.Trial)
    public void setUp() {
        RandomAvl random = new RandomAvl(0x7E17_F4A3L).realistic();
        stream = PooledByteBufAllocator.DEFAULT.directBuffer();
        for (int i = 0; i < FRAMES; i++) {
            stream.writeBytes(RandomAvl.tcpFrame(random.packet(CodecId.CODEC_8, records)));
        }
        streamBytes = stream.readableBytes();
        if (readAll() != FRAMES) {
            throw new IllegalStateException("framer did not cut " + FRAMES + " frames");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stream.release();
    }

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Framed {
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            bytes = 0;
        }
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int frames(Framed framed) {
        int n = readAll();
        framed.bytes += streamBytes;
        return n;
    }

    private int readAll() {
        stream.readerIndex(0);
        int n = 0;
        Frame frame;
        while ((frame = reader.tryRead(stream)) != null) {
            n++;
            if (frame instanceof io.netty.util.ReferenceCounted counted) {
                counted.release();
            }
        }
        return n;
    }
}
