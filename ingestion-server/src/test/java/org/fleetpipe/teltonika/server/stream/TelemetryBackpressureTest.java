package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlScratch;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.ingest.HeldWrite;
import org.fleetpipe.teltonika.server.ingest.StreamFull;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** The gate between the packets and the writer: closed past the cap, open again below 90 % of it. */
class TelemetryBackpressureTest {

    private static final Imei IMEI = Imei.parse(TestImeis.WIKI, true);
    private static final StreamRetentionSettings SETTINGS = new StreamRetentionSettings(1000,
            RetentionMode.ACKNOWLEDGED, Duration.ZERO, Duration.ofSeconds(1), 100, 0.8, Duration.ofSeconds(60), 7,
            0.5, Duration.ofMinutes(5), Duration.ofMinutes(30));
    private static final GroupPosition GROUP = new GroupPosition("g", 1, 0, "0-0", "", 100, "1-0");

    private final FakeTelemetryWriter writer = new FakeTelemetryWriter();
    private long now = TimeUnit.SECONDS.toNanos(1000);
    private final TelemetryBackpressure gate = new TelemetryBackpressure(writer, SETTINGS, 3, () -> now);
    private final AvlPacket packet = new RandomAvl(7).packet(CodecId.CODEC_8, 2);

    private static StreamSnapshot stream(long length, boolean withGroup) {
        return memory(length, withGroup, 0, 0);
    }

    private static StreamSnapshot memory(long length, boolean withGroup, long used, long max) {
        return new StreamSnapshot(length, 0, "1-0", "2-0", used, max, withGroup ? List.of(GROUP) : List.of(), 1);
    }

    @Test
    void belowTheCap_thenWritesGoStraightThrough() {
        gate.update(stream(99, true));

        gate.write(IMEI, packet, 1);

        assertThat(gate.engaged()).isFalse();
        assertThat(writer.count()).isEqualTo(1);
    }

    @Test
    void atTheCapWithAGroup_thenHeldUnwrittenUntilBelowNinetyPercent() {
        gate.update(stream(100, true));
        CompletableFuture<Integer> held = gate.write(IMEI, packet, 1).toCompletableFuture();

        assertThat(gate.engaged()).isTrue();
        assertThat(writer.count()).as("not written, so not acknowledged").isZero();
        assertThat(gate.held()).isEqualTo(1);

        gate.update(stream(95, true));
        assertThat(gate.engaged()).as("95 is not below the resume mark of 90").isTrue();
        assertThat(writer.count()).isZero();

        gate.update(stream(89, true));
        assertThat(gate.engaged()).isFalse();
        assertThat(writer.count()).as("written once released").isEqualTo(1);
        writer.write(0).succeed();
        assertThat(held).isCompletedWithValue(packet.size());
        assertThat(gate.held()).isZero();
        assertThat(gate.heldTotal()).isEqualTo(1);
        assertThat(gate.engagedTotal()).isEqualTo(1);
        assertThat(gate.heldTotal(StreamShares.Hold.STREAM_FULL)).isEqualTo(1);
    }

    @Test
    void held_whenItsScratchIsReusedAfterTheCall_thenTheHeldCopyIsWritten() {
        gate.update(stream(100, true));
        AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
        AvlScratch scratch = new AvlScratch();
        gate.write(IMEI, decoder.view(Unpooled.wrappedBuffer(RandomAvl.body(packet)), scratch), 1);
        decoder.view(Unpooled.wrappedBuffer(RandomAvl.body(new RandomAvl(8).packet(CodecId.CODEC_8, 3))), scratch);

        gate.update(stream(89, true));

        assertThat(writer.write(0).packet()).isEqualTo(packet);
    }

    @Test
    void longWithoutAGroup_thenNeverEngaged() {
        gate.update(stream(1_000_000, false));

        assertThat(gate.engaged()).isFalse();
    }

    @Test
    void heldLongerThanMaxHold_thenFailsAsStreamFull() {
        gate.update(stream(100, true));
        CompletableFuture<Integer> held = gate.write(IMEI, packet, 1).toCompletableFuture();

        now += TimeUnit.SECONDS.toNanos(59);
        gate.update(stream(100, true));
        assertThat(held).isNotDone();
        now += TimeUnit.SECONDS.toNanos(2);
        gate.update(stream(100, true));

        assertThat(held).isCompletedExceptionally();
        assertThat(held.handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(gate.expiredTotal()).isEqualTo(1);
        assertThat(gate.held()).isZero();
        assertThat(writer.count()).isZero();
    }

    @Test
    void moreThanMaxHeld_thenTheExtraFailsAtOnce() {
        gate.update(stream(100, true));
        for (int i = 0; i < 3; i++) {
            gate.write(IMEI, packet, 1);
        }

        CompletableFuture<Integer> extra = gate.write(IMEI, packet, 1).toCompletableFuture();

        assertThat(extra).isCompletedExceptionally();
        assertThat(gate.held()).isEqualTo(3);
    }

    @Test
    void moreRecordsThanMaxHeldRecords_thenThePacketPastThemFailsAtOnce() {
        TelemetryBackpressure roomy = new TelemetryBackpressure(writer, SETTINGS, 1000, () -> now);
        roomy.update(stream(100, true));
        for (int i = 0; i < 3; i++) {
            assertThat(roomy.write(IMEI, packet, 1).toCompletableFuture()).isNotDone();
        }

        assertThat(roomy.write(IMEI, packet, 1).toCompletableFuture()).as("8 records > 7").isCompletedExceptionally();
        assertThat(roomy.heldRecords()).isEqualTo(6);
    }

    @Test
    void redisMemoryNearlyFullWithAGroup_thenHeld_andReleasedFivePointsBelow() {
        gate.update(memory(10, true, 81, 100));
        assertThat(gate.engaged()).isTrue();

        gate.update(memory(10, true, 76, 100));
        assertThat(gate.engaged()).as("76 % is not 5 points below 80 %").isTrue();
        gate.update(memory(10, true, 74, 100));
        assertThat(gate.engaged()).isFalse();

        gate.update(memory(10, false, 99, 100));
        assertThat(gate.engaged()).as("without a group no consumer can free memory").isFalse();
        gate.update(memory(10, true, 99, 0));
        assertThat(gate.engaged()).as("no maxmemory: Redis never refuses for memory").isFalse();
    }

    @Test
    void heldPacketAbandoned_thenNeverWritten() {
        gate.update(stream(100, true));
        CompletableFuture<Integer> held = gate.write(IMEI, packet, 1).toCompletableFuture();

        ((HeldWrite) held).abandon();
        gate.update(stream(0, true));

        assertThat(held).isCompletedExceptionally();
        assertThat(writer.count()).isZero();
        assertThat(gate.held()).isZero();
        assertThat(gate.heldRecords()).isZero();
    }

    @Test
    void closed_thenHeldPacketsFailAndNewOnesToo() {
        gate.update(stream(100, true));
        CompletableFuture<Integer> held = gate.write(IMEI, packet, 1).toCompletableFuture();

        gate.close();

        assertThat(held).isCompletedExceptionally();
        assertThat(gate.write(IMEI, packet, 1).toCompletableFuture()).isCompletedExceptionally();
        assertThat(writer.count()).isZero();
    }
    private static final Imei FLOODER = Imei.parse(TestImeis.numbered(1), true);

    /** A gate whose shares apply from 10 of the 100 entries the cap allows. */
    private TelemetryBackpressure sharedGate(long maxHeldBytes) {
        return new TelemetryBackpressure(writer, SETTINGS, 100, new StreamShares(10, 100), maxHeldBytes,
                () -> now);
    }

    @Test
    void deviceOverItsShare_thenOnlyItsPacketsAreHeld_andTheOthersAreWritten() {
        TelemetryBackpressure shared = sharedGate(Long.MAX_VALUE);
        for (int i = 0; i < 5; i++) {
            shared.write(FLOODER, packet, 1);
        }
        assertThat(writer.count()).as("10 records: up to the point where shares apply").isEqualTo(5);

        CompletableFuture<Integer> held = shared.write(FLOODER, packet, 1).toCompletableFuture();
        shared.write(IMEI, packet, 1);

        assertThat(shared.engaged()).as("the stream is not full").isFalse();
        assertThat(shared.held()).isEqualTo(1);
        assertThat(shared.shareHeldTotal()).isEqualTo(1);
        assertThat(shared.heldTotal(StreamShares.Hold.DEVICE_SHARE)).isEqualTo(1);
        assertThat(writer.count()).as("the other device's packet went through").isEqualTo(6);
        assertThat(writer.write(5).imei()).isEqualTo(IMEI);

        // The consumers read: the stream holds 4 of the 12 entries written, so the estimates shrink to a third.
        shared.update(stream(4, true));
        assertThat(writer.count()).as("back within its share: released").isEqualTo(7);
        writer.write(6).succeed();
        assertThat(held).isCompletedWithValue(packet.size());
    }

    @Test
    void deviceOverItsShare_whenTheStreamStaysUnread_thenItsHeldPacketFailsAfterMaxHold() {
        TelemetryBackpressure shared = sharedGate(Long.MAX_VALUE);
        for (int i = 0; i < 5; i++) {
            shared.write(FLOODER, packet, 1);
        }
        CompletableFuture<Integer> held = shared.write(FLOODER, packet, 1).toCompletableFuture();

        now += TimeUnit.SECONDS.toNanos(61);
        shared.update(stream(50, true));

        assertThat(held.handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(shared.held()).isZero();
    }

    @Test
    void heldBytesPastTheirBound_thenTheNextPacketFailsAtOnce() {
        AvlPacketView view = AvlPacketView.of(packet);
        TelemetryBackpressure bounded = sharedGate(view.recordBytes() * 2L);
        bounded.update(stream(100, true));

        CompletableFuture<Integer> first = bounded.write(IMEI, view, 1).toCompletableFuture();
        CompletableFuture<Integer> second = bounded.write(IMEI, view, 1).toCompletableFuture();
        CompletableFuture<Integer> third = bounded.write(IMEI, view, 1).toCompletableFuture();

        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
        assertThat(third.handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(bounded.heldBytes()).isEqualTo(view.recordBytes() * 2L);
    }

    @Test
    void onePartitionAtItsShareOfTheCap_thenOnlyItsDevicesAreHeld() {
        // Two partitions: 50 of the cap of 100 each. IMEI is in partition 1, FLOODER in 0.
        TelemetryBackpressure split = new TelemetryBackpressure(writer, SETTINGS, 3, StreamShares.off(),
                Long.MAX_VALUE, 2, imei -> imei.equals(IMEI) ? 1 : 0, () -> now);
        StreamSnapshot fullOne = stream(50, true);
        StreamSnapshot emptyOne = stream(0, true);
        split.update(List.of(emptyOne, fullOne), StreamSnapshot.combined(List.of(emptyOne, fullOne)));

        CompletableFuture<Integer> held = split.write(IMEI, packet, 1).toCompletableFuture();
        split.write(FLOODER, packet, 1);

        assertThat(split.engaged()).isTrue();
        assertThat(split.fullPartitionCount()).isOne();
        assertThat(writer.count()).as("the other partition's device went through").isEqualTo(1);
        assertThat(writer.write(0).imei()).isEqualTo(FLOODER);
        assertThat(split.held()).isEqualTo(1);

        StreamSnapshot readOne = stream(44, true);
        split.update(List.of(emptyOne, readOne), StreamSnapshot.combined(List.of(emptyOne, readOne)));
        assertThat(split.engaged()).isFalse();
        assertThat(writer.count()).as("released once its partition is below 90 % of 50").isEqualTo(2);
        writer.write(1).succeed();
        assertThat(held).isCompletedWithValue(packet.size());
    }

    @Test
    void partitionsCombined_thenCountsAddUpAndTheOldestPositionsAreKept() {
        GroupPosition a = new GroupPosition("g", 1, 3, "5-0", "4-0", 10, "6-0");
        GroupPosition b = new GroupPosition("g", 2, 4, "3-0", "2-0", 7, "4-0");
        GroupPosition other = new GroupPosition("h", 1, 0, "9-0", "", 0, "");
        StreamSnapshot first = new StreamSnapshot(20, 1, "1-0", "9-0", 100, 1000, List.of(a, other), 5);
        StreamSnapshot second = new StreamSnapshot(30, 2, "2-0", "8-0", 700, 1000, List.of(b), 6);

        StreamSnapshot all = StreamSnapshot.combined(List.of(first, second));

        assertThat(all.length()).isEqualTo(50);
        assertThat(all.trimmed()).isEqualTo(3);
        assertThat(all.firstId()).isEqualTo("1-0");
        assertThat(all.lastId()).isEqualTo("9-0");
        assertThat(all.memoryFraction()).as("the fullest node's").isEqualTo(0.7);
        assertThat(all.groups()).containsExactly(new GroupPosition("g", 2, 7, "3-0", "2-0", 17, "4-0"), other);
        assertThat(all.unread()).isEqualTo(24);
        assertThat(all.takenAt()).isEqualTo(6);
    }
}
