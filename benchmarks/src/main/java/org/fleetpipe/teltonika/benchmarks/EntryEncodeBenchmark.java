package org.fleetpipe.teltonika.benchmarks;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.codec.avl.AvlScratch;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.redis.RespArguments;
import org.fleetpipe.teltonika.server.ingest.RecordValidity;
import org.fleetpipe.teltonika.server.ingest.RecordValidityMetrics;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
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
 * The server's encoding of one packet's records as the {@code XADD} commands of a telemetry block
 * ({@link TelemetryEntryMapper#appendXadd}), read in place from a pooled direct buffer as the
 * writer reads a frame: the Java work per record between the frame and the bytes sent to Redis,
 * without the sockets. One operation is one packet; the {@code records} counter gives records/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EntryEncodeBenchmark {

    /** Wire label of the codec: 8, 8E or 16. */
    @Param({"8", "8E"})
    public String codec;

    @Param({"10"})
    public int records;

    /**
     * {@code metered}: each record's validity told to the server's Prometheus meters, as the server
     * does; {@code unobserved}: the rule alone (what the meters cost is the difference).
     */
    @Param({"metered"})
    public String validity;

    private final AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(1 << 20));
    private final AvlScratch scratch = new AvlScratch();
    private final AvlRecordCursor cursor = new AvlRecordCursor();
    private TelemetryEntryMapper mapper;
    private final TelemetryEntryMapper.PacketValues values =
            new TelemetryEntryMapper.PacketValues(RespArguments.preEncoded("telemetry"));
    private final byte[] imei = RespArguments.preEncoded("352093081452251");
    private final RespArguments out = new RespArguments(64 * 1024);
    private ByteBuf body;

    @Setup(Level.Trial)
    public void setUp() {
        RecordValidity.Observer observer = switch (validity) {
            case "metered" -> RecordValidityMetrics.bind(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
            case "unobserved" -> RecordValidity.Observer.NONE;
            default -> throw new IllegalArgumentException("validity: metered or unobserved, not " + validity);
        };
        mapper = new TelemetryEntryMapper(() -> "ingest-7f9c4d-1",
                new RecordValidity(RecordValidity.DEFAULT_FUTURE_SKEW, observer));
        AvlPacket packet = BenchmarkPackets.realistic(BenchmarkPackets.codec(codec), records);
        byte[] bytes = RandomAvl.body(packet);
        body = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        body.writeBytes(bytes);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        body.release();
    }

    /** Records encoded; JMH reports them as a rate beside ops/s. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Encoded {
        public long records;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
        }
    }

    /** View the body (its checks included), then one XADD per record into a reused buffer. */
    @Benchmark
    public int encode(Encoded encoded) {
        AvlPacketView view = decoder.view(body, scratch);
        TelemetryEntryMapper.PacketValues packet = mapper.packetValues(values, view.codec(), imei, 1_763_800_000_214L);
        AvlRecordCursor r = cursor.reset(view);
        while (r.next()) {
            mapper.appendXadd(packet, r, out);
        }
        int bytes = out.byteLength();
        out.reset();
        encoded.records += records;
        return bytes;
    }
}
