package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.StreamFull;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** The held packets' books: bounds, release in order, expiry, abandonment and the stop. */
class HeldPacketsTest {

    private static final StreamRetentionSettings SETTINGS = new StreamRetentionSettings(1000,
            RetentionMode.ACKNOWLEDGED, Duration.ZERO, Duration.ofSeconds(1), 100, 0.8, Duration.ofSeconds(60), 7,
            0.5, Duration.ofMinutes(5), Duration.ofMinutes(30));
    private static final GroupPosition GROUP = new GroupPosition("g", 1, 0, "0-0", "", 100, "1-0");
    private static final Imei FIRST = Imei.parse(TestImeis.WIKI, true);
    private static final Imei SECOND = Imei.parse(TestImeis.numbered(1), true);
    private static final StreamShares.Hold FULL = StreamShares.Hold.STREAM_FULL;

    private final FakeTelemetryWriter writer = new FakeTelemetryWriter();
    private long now = TimeUnit.SECONDS.toNanos(1000);
    private final HeldPackets books = new HeldPackets(writer, 3, 7, Long.MAX_VALUE,
            new ShareHoldLog(StreamShares.off()), () -> now);
    private final AvlPacketView packet = AvlPacketView.of(new RandomAvl(7).packet(CodecId.CODEC_8, 2));
    private final FullPartitions partitions = new FullPartitions(SETTINGS, 1, imei -> 0);

    private CompletableFuture<Integer> hold(Imei imei) {
        return books.hold(FULL, imei, 0, packet, 1, ResendGuard.everyPacket(), null).toCompletableFuture();
    }

    private void partitionFull(boolean full) {
        StreamSnapshot stream = new StreamSnapshot(full ? 100 : 0, 0, "1-0", "2-0", 0, 0, List.of(GROUP), 1);
        partitions.update(List.of(stream), stream, now, books.packets());
    }

    @Test
    void held_thenCountedUntilReleased_thenWrittenInTheOrderTheyCame() {
        partitionFull(true);
        CompletableFuture<Integer> first = hold(FIRST);
        CompletableFuture<Integer> second = hold(SECOND);

        assertThat(books.packets()).isEqualTo(2);
        assertThat(books.records()).isEqualTo(4);
        assertThat(books.bytes()).isEqualTo(2L * packet.recordBytes());
        books.release(partitions, StreamShares.off());
        assertThat(writer.count()).as("its partition is still full").isZero();

        partitionFull(false);
        books.release(partitions, StreamShares.off());

        assertThat(writer.writes()).extracting(FakeTelemetryWriter.Write::imei).containsExactly(FIRST, SECOND);
        writer.write(0).succeed();
        assertThat(first).isCompletedWithValue(2);
        assertThat(second).isNotDone();
        assertThat(books.packets()).isZero();
        assertThat(books.records()).isZero();
        assertThat(books.total()).isEqualTo(2);
        assertThat(books.total(FULL)).isEqualTo(2);
    }

    @Test
    void pastABound_thenFailsAtOnce_andLeavesTheCountsAsTheyWere() {
        hold(FIRST);
        hold(FIRST);
        hold(FIRST);

        CompletableFuture<Integer> fourth = hold(FIRST);
        assertThat(fourth.handle((v, e) -> StreamFull.is(e)).join()).as("3 packets at most").isTrue();
        assertThat(books.packets()).isEqualTo(3);
        assertThat(books.records()).isEqualTo(6);
        assertThat(books.expiredTotal()).isOne();
        assertThat(books.total()).isEqualTo(3);
    }

    @Test
    void heldForMaxHold_thenFails_whileAnAbandonedOneIsForgottenUncounted() {
        CompletableFuture<Integer> old = hold(FIRST);
        now += TimeUnit.SECONDS.toNanos(30);
        CompletableFuture<Integer> abandoned = hold(SECOND);
        ((HeldPacket) abandoned).abandon();
        CompletableFuture<Integer> young = hold(SECOND);

        now += TimeUnit.SECONDS.toNanos(30);
        books.expire(Duration.ofSeconds(60));

        assertThat(old.handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(abandoned.handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(young).isNotDone();
        assertThat(books.expiredTotal()).as("the abandoned one is not an expiry").isOne();
        assertThat(books.packets()).isOne();
    }

    @Test
    void closed_thenEveryHeldPacketFails_andSoDoesAnyHeldLater() {
        CompletableFuture<Integer> held = hold(FIRST);

        books.close();

        assertThat(held.handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(hold(SECOND).handle((v, e) -> StreamFull.is(e)).join()).isTrue();
        assertThat(books.packets()).isZero();
        assertThat(writer.count()).isZero();
    }

    @Test
    void heaviest_isTheHeldDeviceWithTheLargestEstimate() {
        StreamShares shares = new StreamShares(10, 100);
        for (int i = 0; i < 4; i++) {
            shares.admit(SECOND, null, 2);
        }
        shares.admit(FIRST, null, 2);
        hold(FIRST);
        hold(SECOND);

        assertThat(books.heaviest(shares)).isEqualTo(SECOND);
        assertThat(new HeldPackets(writer, 3, 7, Long.MAX_VALUE, new ShareHoldLog(shares), () -> now)
                .heaviest(shares)).isNull();
    }
}
