package org.fleetpipe.teltonika.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.codec.avl.AvlScratch;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link AvlPacketDecoder#decode} of one realistic packet body (codec id through number of data
 * 2, as {@code DataFrame.body()} hands it to the server's {@code TelemetryHandler}). The body is
 * encoded once in setup into a pooled direct buffer (what the server's sockets read into) or an
 * unpooled heap buffer; {@code decode} does not move the buffer's indices, so every operation
 * decodes the same bytes with no copy.
 *
 * <p>One operation is one packet. The auxiliary counters {@code records} and {@code bytes} give
 * records/s and body bytes/s; divide {@code gc.alloc.rate.norm} ({@code -prof gc}) by the
 * records per packet for the allocation per record.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AvlDecodeBenchmark {

    /** Wire label of the codec: 8, 8E or 16. */
    @Param({"8", "8E", "16"})
    public String codec;

    @Param({"1", "10", "50"})
    public int records;

    /** {@code pooled}: pooled direct buffer (the server's case); {@code heap}: unpooled heap. */
    @Param({"pooled", "heap"})
    public String buffer;

    private AvlPacketDecoder decoder;
    private final AvlRecordCursor cursor = new AvlRecordCursor();
    private final AvlScratch scratch = new AvlScratch();
    private ByteBuf body;
    private int bodyBytes;

    @Setup(Level.Trial)
    public void setUp() {
        AvlPacket packet = BenchmarkPackets.realistic(BenchmarkPackets.codec(codec), records);
        byte[] bytes = RandomAvl.body(packet);
        bodyBytes = bytes.length;
        body = switch (buffer) {
            case "pooled" -> PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
            case "heap" -> Unpooled.buffer(bytes.length);
            default -> throw new IllegalArgumentException("buffer " + buffer);
        };
        body.writeBytes(bytes);
        // Unlimited enough for the biggest generated packet; the decoder still checks every count.
        decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(1 << 20));
        AvlPacket decoded = decoder.decode(body);
        if (!decoded.equals(packet)) {
            throw new IllegalStateException("decode(encode(p)) != p for " + codec + " x " + records);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        body.release();
    }

    /** Records and body bytes decoded; JMH reports them as rates beside ops/s. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Decoded {
        public long records;
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
            bytes = 0;
        }
    }

    @Benchmark
    public AvlPacket decode(Decoded decoded) {
        AvlPacket packet = decoder.decode(body);
        decoded.records += records;
        decoded.bytes += bodyBytes;
        return packet;
    }

    /**
     * What the server does instead: {@link AvlPacketDecoder#view} into a reused scratch (the same
     * checks, no objects), then
     * one {@link AvlRecordCursor} walk reading every field and IO element, as the writer's encoding does.
     */
    @Benchmark
    public long viewAndRead(Decoded decoded) {
        AvlRecordCursor r = cursor.reset(decoder.view(body, scratch));
        long sum = 0;
        while (r.next()) {
            sum += r.timestamp() + r.priority() + r.longitude() + r.latitude() + r.altitude() + r.angle()
                    + r.satellites() + r.speed() + r.eventIoId() + r.generationType();
            while (r.nextIo()) {
                sum += r.ioId() + (r.ioVariable() ? r.ioVariableLength() : r.ioValue());
            }
        }
        decoded.records += records;
        decoded.bytes += bodyBytes;
        return sum;
    }
}
