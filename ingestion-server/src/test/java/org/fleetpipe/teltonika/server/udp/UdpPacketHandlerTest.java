package org.fleetpipe.teltonika.server.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.TcpKnownImeis;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.limits.DeviceRateSettings;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.RecordingDeadLetters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The datagram handler alone: ACK only after the write, back-pressure by pausing the socket. */
class UdpPacketHandlerTest {

    private static final int MAX_IN_FLIGHT = 4;
    private static final InetSocketAddress DEVICE = new InetSocketAddress("127.0.0.1", 40001);
    private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 5027);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final FakeTelemetryWriter writer = new FakeTelemetryWriter();
    private final RecordingDeadLetters deadLetters = new RecordingDeadLetters();
    private EmbeddedChannel channel = channel(UdpAdmissionGate.OPEN, records -> true);
    private final RandomAvl random = new RandomAvl(11L);

    private EmbeddedChannel channel(UdpAdmissionGate admission, IntPredicate writeBudget) {
        return new EmbeddedChannel(new UdpPacketHandler(
                new UdpPacketDecoder(DecodeLimits.DEFAULTS), true, writer, deadLetters,
                new IngestionMetrics(registry), MAX_IN_FLIGHT, new PendingCalls(), admission, writeBudget,
                new org.fleetpipe.teltonika.server.admission.RefusalLog(java.time.Duration.ofMinutes(1)),
                // A frozen clock: each device has its burst of 20 records and nothing more.
                new DeviceRateLimits(new DeviceRateSettings(1, 20, 0, 0), 10, () -> 0L)));
    }

    /** This test's channel instead, with {@code admission} and {@code writeBudget}. */
    private void use(UdpAdmissionGate admission, IntPredicate writeBudget) {
        channel.finishAndReleaseAll();
        channel = channel(admission, writeBudget);
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private void receive(byte[] datagram) {
        channel.writeInbound(new DatagramPacket(channel.alloc().buffer().writeBytes(datagram), SERVER, DEVICE));
    }

    private byte[] datagram(int packetId, String imei, AvlPacket packet) {
        return Frames.udp(new UdpPacket(packetId, packetId & 0xFF, imei, packet));
    }

    /** ACKs sent so far, each checked to go back to the sender. */
    private List<UdpAck> acks() {
        List<UdpAck> acks = new ArrayList<>();
        DatagramPacket out;
        while ((out = channel.readOutbound()) != null) {
            try {
                assertThat(out.recipient()).isEqualTo(DEVICE);
                acks.add(UdpAck.read(out.content()));
            } finally {
                out.release();
            }
        }
        return acks;
    }

    private double counter(String name, String tag, String value) {
        Counter c = registry.find(name).tag(tag, value).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void datagram_whenWriteOutstanding_thenAckOnlyAfterStored() {
        AvlPacket packet = random.packet(CodecId.CODEC_16, 4);

        receive(datagram(0x1234, TestImeis.WIKI, packet));
        channel.runPendingTasks();

        assertThat(acks()).isEmpty();
        assertThat(writer.write(0).imei().value()).isEqualTo(TestImeis.WIKI);
        assertThat(writer.write(0).packet()).isEqualTo(packet);

        writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(acks()).containsExactly(new UdpAck(0x1234, 0x34, 4));
    }

    @Test
    void datagram_whenItsDeviceIsOverItsRateBudget_thenDroppedUnwrittenAndUnacknowledged_othersStillWritten() {
        receive(datagram(1, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 15)));
        receive(datagram(2, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 10)));
        receive(datagram(3, TestImeis.numbered(5), random.packet(CodecId.CODEC_8, 10)));
        channel.runPendingTasks();

        assertThat(writer.count()).as("the second datagram of the first device is over its 20").isEqualTo(2);
        assertThat(writer.write(1).imei().value()).isEqualTo(TestImeis.numbered(5));
        writer.write(0).succeed();
        writer.write(1).succeed();
        channel.runPendingTasks();
        assertThat(acks()).extracting(UdpAck::packetId).containsExactly(1, 3);
        assertThat(counter("teltonika.device.rate.limited", "action", "dropped")).isEqualTo(1);
    }

    @Test
    void datagram_whenWriteFails_thenNoAck() {
        receive(datagram(1, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 1)));

        writer.write(0).fail("redis down");
        channel.runPendingTasks();

        assertThat(acks()).isEmpty();
        assertThat(counter("teltonika.redis.errors", "op", "telemetry-write")).isEqualTo(1);
        assertThat(channel.isOpen()).as("one device's failure must not close the shared socket").isTrue();
    }

    @Test
    void datagrams_whenInFlightReachesLimit_thenReadingPausedUntilHalfCompleted() {
        for (int i = 0; i < MAX_IN_FLIGHT - 1; i++) {
            receive(datagram(i, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 1)));
        }
        assertThat(channel.config().isAutoRead()).as("below the limit").isTrue();

        receive(datagram(MAX_IN_FLIGHT - 1, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 1)));
        assertThat(channel.config().isAutoRead()).as("at the limit").isFalse();

        writer.write(0).succeed();
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).as("3 of 4 still in flight").isFalse();

        writer.write(1).succeed();
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).as("half completed").isTrue();
        assertThat(acks()).extracting(UdpAck::packetId).containsExactly(0, 1);
    }

    @Test
    void datagram_whenImeiCheckDigitWrong_thenDeadLetteredAndNotWritten() {
        byte[] datagram = datagram(9, TestImeis.BAD_LUHN, random.packet(CodecId.CODEC_8, 1));

        receive(datagram);
        channel.runPendingTasks();

        assertThat(writer.count()).isZero();
        assertThat(acks()).isEmpty();
        assertThat(deadLetters.letters()).singleElement().satisfies(letter -> {
            assertThat(letter.reason()).isEqualTo("imei-check-digit");
            assertThat(letter.imei()).isEqualTo(TestImeis.BAD_LUHN);
            assertThat(letter.hex()).isEqualTo(Hex.of(datagram));
        });
        assertThat(counter("teltonika.frames.rejected", "reason", "imei-check-digit")).isEqualTo(1);
    }

    @Test
    void datagram_whenBodyTruncated_thenDeadLetteredWithHeaderImei() {
        byte[] whole = datagram(9, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 1));
        int bodyAt = 8 + TestImeis.WIKI.length();
        // One record declared, but the body ends 20 bytes into it; the length field stays honest.
        byte[] cut = Frames.concat(Arrays.copyOf(whole, bodyAt + 22), new byte[] {0x01});
        cut[0] = (byte) ((cut.length - 2) >>> 8);
        cut[1] = (byte) (cut.length - 2);

        receive(cut);

        assertThat(writer.count()).isZero();
        assertThat(acks()).isEmpty();
        assertThat(deadLetters.letters()).singleElement().satisfies(letter -> {
            assertThat(letter.imei()).isEqualTo(TestImeis.WIKI);
            assertThat(letter.reason()).isEqualTo("truncated");
        });
    }

    @Test
    void garbage_whenItsDeadLettersAreStillBeingStored_thenTheyCountAsInFlightAndPauseReading() {
        deadLetters.holdStores();
        byte[] garbage = {0x00, 0x05, 0x12, 0x34, 0x01, 0x00, 0x0F};

        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            receive(garbage);
        }

        assertThat(channel.config().isAutoRead()).as("4 dead letters under way").isFalse();
        assertThat(deadLetters.letters()).hasSize(MAX_IN_FLIGHT).allSatisfy(letter -> {
            assertThat(letter.origin().loggedIn()).as("anyone can send a datagram").isFalse();
            assertThat(letter.origin().address()).isEqualTo(DEVICE.getAddress());
        });
        deadLetters.finishStores();
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).isTrue();
    }

    @Test
    void datagram_whenImeiTextHoldsControlAndNonAsciiBytes_thenDeadLetteredOnlyEscaped() {
        String forged = "3563\n\u001b[31m\u00e9\\" + "7".repeat(60);
        byte[] datagram = datagram(9, forged, random.packet(CodecId.CODEC_8, 1));

        receive(datagram);
        channel.runPendingTasks();

        assertThat(writer.count()).isZero();
        assertThat(acks()).isEmpty();
        assertThat(deadLetters.letters()).singleElement().satisfies(letter -> {
            assertThat(letter.imei()).startsWith("3563\\x0a\\x1b[31m\\xe9\\\\777")
                    .endsWith("...(" + forged.length() + " chars)")
                    .hasSize(42 + "...(72 chars)".length());
            assertThat(letter.imei().chars()).allMatch(c -> c >= 0x20 && c < 0x7F);
        });
    }

    @Test
    void datagrams_overTheWriteBudget_thenDroppedUnacknowledgedAndCounted() {
        AtomicInteger budget = new AtomicInteger(5);
        use(UdpAdmissionGate.OPEN, records -> budget.addAndGet(-records) >= 0);

        receive(datagram(1, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 3)));
        receive(datagram(2, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 3)));
        channel.runPendingTasks();
        writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(writer.count()).as("3 of 5 records, then 3 more do not fit").isEqualTo(1);
        assertThat(acks()).extracting(UdpAck::packetId).containsExactly(1);
        assertThat(counter("teltonika.udp.dropped", "reason", "write-budget")).isEqualTo(1);
        assertThat(channel.config().isAutoRead()).as("nothing left in flight").isTrue();
    }

    @Test
    void datagrams_whenTcpKnownRequired_thenOnlyImeisThatLoggedInOverTcpAreStored() {
        Set<String> loggedInOverTcp = Set.of(TestImeis.WIKI);
        use(new UdpAdmissionGate(Admission.OPEN, new TcpKnownImeis(
                imei -> CompletableFuture.completedFuture(loggedInOverTcp.contains(imei.value()))), NewImeiLimit.OFF),
                records -> true);

        receive(datagram(1, TestImeis.OTHER, random.packet(CodecId.CODEC_8, 1)));
        receive(datagram(2, TestImeis.WIKI, random.packet(CodecId.CODEC_8, 1)));
        channel.runPendingTasks();
        writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(writer.count()).isEqualTo(1);
        assertThat(writer.write(0).imei().value()).isEqualTo(TestImeis.WIKI);
        assertThat(acks()).extracting(UdpAck::packetId).containsExactly(2);
        assertThat(counter("teltonika.logins", "reason", "not-tcp-known")).isEqualTo(1);
    }
}
