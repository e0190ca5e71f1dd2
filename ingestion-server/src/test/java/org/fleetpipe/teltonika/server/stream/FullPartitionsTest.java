package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** The gate's state: which partitions are full, from the retention pass's snapshots. */
class FullPartitionsTest {

    private static final StreamRetentionSettings SETTINGS = new StreamRetentionSettings(1000,
            RetentionMode.ACKNOWLEDGED, Duration.ZERO, Duration.ofSeconds(1), 100, 0.8, Duration.ofSeconds(60), 7,
            0.5, Duration.ofMinutes(5), Duration.ofMinutes(30));
    private static final GroupPosition GROUP = new GroupPosition("g", 1, 0, "0-0", "", 100, "1-0");
    private static final Imei IN_ONE = Imei.parse(TestImeis.WIKI, true);
    private static final Imei IN_ZERO = Imei.parse(TestImeis.numbered(1), true);

    private final AtomicInteger lookups = new AtomicInteger();
    private final FullPartitions two = new FullPartitions(SETTINGS, 2, imei -> {
        lookups.incrementAndGet();
        return imei.equals(IN_ONE) ? 1 : 0;
    });

    private static StreamSnapshot stream(long length) {
        return new StreamSnapshot(length, 0, "1-0", "2-0", 0, 0, List.of(GROUP), 1);
    }

    private void update(FullPartitions partitions, long zero, long one) {
        List<StreamSnapshot> each = List.of(stream(zero), stream(one));
        partitions.update(each, StreamSnapshot.combined(each), 0, 0);
    }

    @Test
    void noneFull_thenNotEngaged_andNoDevicesPartitionIsLookedFor() {
        update(two, 10, 10);

        assertThat(two.engaged()).isFalse();
        assertThat(two.partitionIfEngaged(IN_ONE)).isEqualTo(-1);
        assertThat(lookups).as("the hot path's lookup only while a partition is full").hasValue(0);
    }

    @Test
    void onePartitionAtItsShareOfTheCap_thenOnlyItIsFull_untilBelowNinetyPercentOfItsShare() {
        update(two, 0, 50);

        assertThat(two.engaged()).isTrue();
        assertThat(two.count()).isOne();
        assertThat(two.partitionIfEngaged(IN_ONE)).isOne();
        assertThat(two.full(1)).isTrue();
        assertThat(two.partitionIfEngaged(IN_ZERO)).isZero();
        assertThat(two.full(0)).isFalse();

        update(two, 0, 45);
        assertThat(two.engaged()).as("45 is not below 90 % of 50").isTrue();
        update(two, 0, 44);
        assertThat(two.engaged()).isFalse();
        assertThat(two.count()).isZero();
    }

    @Test
    void engagedTotal_countsEachTimeAnyPartitionFills_notEachPass() {
        update(two, 50, 0);
        update(two, 50, 50);
        update(two, 50, 50);
        assertThat(two.engagedTotal()).isOne();

        update(two, 0, 0);
        update(two, 0, 50);
        assertThat(two.engagedTotal()).isEqualTo(2);
    }

    @Test
    void onePartition_isEveryDevicesPartition_withoutALookup() {
        FullPartitions one = new FullPartitions(SETTINGS, 1, imei -> {
            throw new AssertionError("looked up");
        });
        one.update(List.of(stream(100)), stream(100), 0, 0);

        assertThat(one.partitionIfEngaged(IN_ONE)).isZero();
        assertThat(one.full(0)).isTrue();
    }
}
