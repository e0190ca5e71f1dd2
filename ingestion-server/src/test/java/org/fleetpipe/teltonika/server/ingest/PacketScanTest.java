package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.junit.jupiter.api.Test;

/** A packet's first reading: which records the writer leaves out as repeats of an earlier one in the same packet. */
class PacketScanTest {

    private static final GpsElement GPS = new GpsElement(252796514, 546871555, (short) 112, 245, 14, 47);

    private static AvlRecord record(long ts) {
        return new AvlRecord(ts, 0, GPS, 0, AvlRecord.NO_GENERATION, List.of(new IoElement.Fixed(239, 1, 1)));
    }

    private static AvlPacketView packet(long... timestamps) {
        return AvlPacketView.of(new AvlPacket(CodecId.CODEC_8, java.util.Arrays.stream(timestamps)
                .mapToObj(PacketScanTest::record).toList()));
    }

    @Test
    void repeats_whenAllDistinct_thenNone() {
        assertThat(PacketScan.repeats(new long[] {3, -1, Long.MIN_VALUE, 7})).containsExactly(false, false, false, false);
    }

    @Test
    void repeats_whenAnIdentityComesAgain_thenEveryLaterOccurrenceButNotTheFirst() {
        assertThat(PacketScan.repeats(new long[] {5, 6, 5, 5, 6, 9})).containsExactly(false, false, true, true, true, false);
    }

    @Test
    void repeats_whenEmpty_thenEmpty() {
        assertThat(PacketScan.repeats(new long[0])).isEmpty();
    }

    @Test
    void scan_withDedup_leavesOutARecordSentTwiceInThePacket_andKeepsTheNewestTimeOfTheRest() {
        PacketScan scan = new PacketScan();

        scan.scan(packet(2000, 1000, 2000, 3000), true);

        assertThat(scan.size()).isEqualTo(4);
        assertThat(scan.count()).isEqualTo(3);
        assertThat(scan.newest()).isEqualTo(3000);
        assertThat(List.of(scan.repeat(0), scan.repeat(1), scan.repeat(2), scan.repeat(3)))
                .containsExactly(false, false, true, false);
        assertThat(scan.id(2)).isEqualTo(scan.id(0)).isNotEqualTo(scan.id(1));
    }

    @Test
    void scan_withoutDedup_keepsEveryRecord_andReusedForTheNextPacket_forgetsTheLast() {
        PacketScan scan = new PacketScan();
        scan.scan(packet(2000, 2000), false);
        assertThat(scan.count()).isEqualTo(2);
        assertThat(scan.repeat(1)).isFalse();

        scan.scan(packet(500), true);

        assertThat(scan.size()).isOne();
        assertThat(scan.count()).isOne();
        assertThat(scan.newest()).isEqualTo(500);
        AvlRecordCursor again = scan.records(packet(7, 8));
        assertThat(again.next()).as("the cursor reads from the start again").isTrue();
        assertThat(again.timestamp()).isEqualTo(7);
    }
}
