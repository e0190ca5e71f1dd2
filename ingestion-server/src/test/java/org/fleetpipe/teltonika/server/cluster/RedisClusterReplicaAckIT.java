package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.Test;

/**
 * ACK_REPLICAS=1 on a Redis Cluster (3 primaries with 2 replicas each, so the promoted one still
 * has a replica to confirm): a primary killed while devices send loses no acknowledged record,
 * stores none twice, keeps each device's order, and every device is acknowledged again.
 */
@WithRedisCluster(replicasPerPrimary = 2)
class RedisClusterReplicaAckIT {

    @Test
    void aPrimaryKilledUnderLoad_losesNoAcknowledgedRecord(LocalRedisCluster cluster) throws Exception {
        ClusterFailover.Outcome outcome = ClusterFailover.run(cluster, 1);

        assertThat(outcome.onKilledPrimary()).as("some devices were on the killed primary").isPositive();
        assertThat(outcome.lastRecordAt()).as("the info hashes, in the namespace's slot, refreshed too")
                .doesNotContainValue(null);
        outcome.acknowledged().forEach((imei, acked) -> {
            List<Long> stored = outcome.stored().get(imei);
            List<Long> times = acked.stream().map(AvlRecord::timestamp).toList();
            // A device sends one packet at a time and resends it until acknowledged (deduplicated),
            // so its stream holds exactly what it was acknowledged, in that order; at most the packet
            // it was resending when it stopped (2 records) may follow, stored but not acknowledged.
            assertThat(stored).as("every acknowledged record of %s, once, in order", imei)
                    .hasSizeBetween(times.size(), times.size() + 2);
            assertThat(stored.subList(0, times.size())).as("%s", imei).isEqualTo(times);
        });
    }
}
