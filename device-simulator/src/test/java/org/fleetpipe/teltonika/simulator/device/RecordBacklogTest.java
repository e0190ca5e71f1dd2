package org.fleetpipe.teltonika.simulator.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.junit.jupiter.api.Test;

class RecordBacklogTest {

    private static final int NO_BYTE_CAP = 1 << 20;
    private static final Duration SECOND = Duration.ofSeconds(1);

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final RecordGenerator generator = new RecordGenerator(CodecId.CODEC_8, Route.vilniusLoop(), 0, 7,
            clock::get);
    /** The same vehicle again, to tell which records the backlog holds. */
    private final RecordGenerator twin = new RecordGenerator(CodecId.CODEC_8, Route.vilniusLoop(), 0, 7,
            clock::get);

    private List<AvlRecord> add(RecordBacklog backlog, int n) {
        assertThat(generator.next(n, SECOND, backlog)).isEqualTo(n);
        return twin.next(n, SECOND);
    }

    private List<AvlRecord> inFlight(RecordBacklog backlog) {
        return backlog.inFlightPacket(CodecId.CODEC_8).records();
    }

    @Test
    void take_thenAcknowledge_thenThePacketsRecordsAreForgotten() {
        RecordBacklog backlog = new RecordBacklog(100);
        List<AvlRecord> batch = add(backlog, 5);

        assertThat(backlog.take(3, NO_BYTE_CAP)).isEqualTo(3);
        assertThat(inFlight(backlog)).isEqualTo(batch.subList(0, 3));
        assertThat(backlog.inFlightResent()).isZero();
        assertThat(backlog.take(3, NO_BYTE_CAP)).as("one packet in flight at a time").isZero();

        backlog.acknowledge();
        assertThat(backlog.size()).isEqualTo(2);
        assertThat(backlog.take(3, NO_BYTE_CAP)).isEqualTo(2);
        assertThat(inFlight(backlog)).isEqualTo(batch.subList(3, 5));
    }

    @Test
    void take_afterThePacketWasReturned_thenSendsTheSameRecordsAgainCountedAsResent() {
        RecordBacklog backlog = new RecordBacklog(100);
        List<AvlRecord> batch = add(backlog, 4);
        backlog.take(4, NO_BYTE_CAP);
        backlog.returnInFlight();
        add(backlog, 4);

        assertThat(backlog.take(6, NO_BYTE_CAP)).isEqualTo(6);
        assertThat(inFlight(backlog).subList(0, 4)).isEqualTo(batch);
        assertThat(backlog.inFlightResent()).isEqualTo(4);

        backlog.acknowledge();
        backlog.take(6, NO_BYTE_CAP);
        assertThat(backlog.inFlightResent()).isZero();
    }

    @Test
    void next_whenFull_thenTheNewestRecordsAreDropped() {
        RecordBacklog backlog = new RecordBacklog(7);
        assertThat(generator.next(5, SECOND, backlog)).isEqualTo(5);
        assertThat(generator.next(5, SECOND, backlog)).isEqualTo(2);
        assertThat(backlog.size()).isEqualTo(7);

        List<AvlRecord> expected = new java.util.ArrayList<>(twin.next(5, SECOND));
        expected.addAll(twin.next(5, SECOND).subList(0, 2));
        assertThat(backlog.take(10, NO_BYTE_CAP)).isEqualTo(7);
        assertThat(inFlight(backlog)).isEqualTo(expected);
    }

    @Test
    void take_withAByteCap_thenFillsUpToTheCapButAlwaysTakesOneRecord() {
        RecordBacklog backlog = new RecordBacklog(100);
        List<AvlRecord> batch = add(backlog, 10);
        int oneRecord = EncodedSize.record(CodecId.CODEC_8, batch.get(0));
        int capForThree = EncodedSize.BODY_OVERHEAD + 3 * oneRecord;

        assertThat(backlog.take(10, capForThree)).isEqualTo(3);
        assertThat(backlog.inFlightBodyBytes()).isEqualTo(capForThree);
        backlog.acknowledge();
        assertThat(backlog.take(10, 1)).isEqualTo(1);
    }

    @Test
    void hasUnsent_tellsWhetherAnythingBesidesThePacketInFlightWaits() {
        RecordBacklog backlog = new RecordBacklog(100);
        assertThat(backlog.hasUnsent()).isFalse();
        add(backlog, 2);
        backlog.take(2, NO_BYTE_CAP);
        assertThat(backlog.hasInFlight()).isTrue();
        assertThat(backlog.hasUnsent()).isFalse();
        add(backlog, 1);
        assertThat(backlog.hasUnsent()).isTrue();
    }

    @Test
    void manyPacketsThroughASmallStart_thenEveryRecordComesOutOnceInOrder() {
        // Starts with room for a few records: growing and compacting must keep the bytes in order.
        RecordBacklog backlog = new RecordBacklog(1000);
        java.util.ArrayList<AvlRecord> expected = new java.util.ArrayList<>();
        java.util.ArrayList<AvlRecord> sent = new java.util.ArrayList<>();
        for (int round = 0; round < 50; round++) {
            expected.addAll(add(backlog, 1 + round % 13));
            if (round % 3 == 0) {
                continue;
            }
            while (backlog.take(7, NO_BYTE_CAP) > 0) {
                sent.addAll(inFlight(backlog));
                backlog.acknowledge();
            }
        }
        while (backlog.take(7, NO_BYTE_CAP) > 0) {
            sent.addAll(inFlight(backlog));
            backlog.acknowledge();
        }
        assertThat(sent).isEqualTo(expected);
        assertThat(backlog.isEmpty()).isTrue();
    }
}
