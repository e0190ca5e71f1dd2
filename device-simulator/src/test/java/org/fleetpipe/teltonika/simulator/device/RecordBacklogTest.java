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

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final RecordGenerator generator = new RecordGenerator(CodecId.CODEC_8, Route.vilniusLoop(), 0, 7,
            clock::get);

    private List<AvlRecord> records(int n) {
        return generator.next(n, Duration.ofSeconds(1));
    }

    @Test
    void take_thenAcknowledge_thenThePacketsRecordsAreForgotten() {
        RecordBacklog backlog = new RecordBacklog(100);
        List<AvlRecord> batch = records(5);
        backlog.add(batch);

        BacklogPacket packet = backlog.take(CodecId.CODEC_8, 3, NO_BYTE_CAP);
        assertThat(packet.records()).isEqualTo(batch.subList(0, 3));
        assertThat(packet.resent()).isZero();
        assertThat(backlog.take(CodecId.CODEC_8, 3, NO_BYTE_CAP)).as("one packet in flight at a time").isNull();

        backlog.acknowledge();
        assertThat(backlog.size()).isEqualTo(2);
        assertThat(backlog.take(CodecId.CODEC_8, 3, NO_BYTE_CAP).records()).isEqualTo(batch.subList(3, 5));
    }

    @Test
    void take_afterThePacketWasReturned_thenSendsTheSameRecordsAgainCountedAsResent() {
        RecordBacklog backlog = new RecordBacklog(100);
        backlog.add(records(4));
        BacklogPacket first = backlog.take(CodecId.CODEC_8, 4, NO_BYTE_CAP);
        backlog.returnInFlight();
        backlog.add(records(4));

        BacklogPacket again = backlog.take(CodecId.CODEC_8, 6, NO_BYTE_CAP);
        assertThat(again.records().subList(0, 4)).isEqualTo(first.records());
        assertThat(again.resent()).isEqualTo(4);

        backlog.acknowledge();
        assertThat(backlog.take(CodecId.CODEC_8, 6, NO_BYTE_CAP).resent()).isZero();
    }

    @Test
    void add_whenFull_thenTheNewestRecordsAreDropped() {
        RecordBacklog backlog = new RecordBacklog(7);
        assertThat(backlog.add(records(5))).isEqualTo(5);
        assertThat(backlog.add(records(5))).isEqualTo(2);
        assertThat(backlog.size()).isEqualTo(7);
    }

    @Test
    void take_withAByteCap_thenFillsUpToTheCapButAlwaysTakesOneRecord() {
        RecordBacklog backlog = new RecordBacklog(100);
        List<AvlRecord> batch = records(10);
        backlog.add(batch);
        int oneRecord = EncodedSize.record(CodecId.CODEC_8, batch.get(0));
        int capForThree = EncodedSize.BODY_OVERHEAD + 3 * oneRecord;

        assertThat(backlog.take(CodecId.CODEC_8, 10, capForThree).size()).isEqualTo(3);
        backlog.acknowledge();
        assertThat(backlog.take(CodecId.CODEC_8, 10, 1).size()).isEqualTo(1);
    }

    @Test
    void hasUnsent_tellsWhetherAnythingBesidesThePacketInFlightWaits() {
        RecordBacklog backlog = new RecordBacklog(100);
        assertThat(backlog.hasUnsent()).isFalse();
        backlog.add(records(2));
        backlog.take(CodecId.CODEC_8, 2, NO_BYTE_CAP);
        assertThat(backlog.hasInFlight()).isTrue();
        assertThat(backlog.hasUnsent()).isFalse();
        backlog.add(records(1));
        assertThat(backlog.hasUnsent()).isTrue();
    }
}
