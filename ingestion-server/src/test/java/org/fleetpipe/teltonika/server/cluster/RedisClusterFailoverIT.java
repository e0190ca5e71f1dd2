package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.Test;

/**
 * A primary killed while devices send, ACK_REPLICAS=0: its replica is promoted, the server follows
 * the topology by itself, every device is acknowledged again, and what it acknowledged after the
 * failover is stored. (Records acknowledged within the replication lag before the kill may be
 * lost: that is what ACK_REPLICAS=1 is for, RedisClusterReplicaAckIT.) A class of its own: the
 * killed node stays dead.
 */
@WithRedisCluster
class RedisClusterFailoverIT {

    @Test
    void aPrimaryKilledUnderLoad_failsOver_andEveryDeviceIsAcknowledgedAgain(LocalRedisCluster cluster)
            throws Exception {
        ClusterFailover.Outcome outcome = ClusterFailover.run(cluster, 0);

        assertThat(outcome.onKilledPrimary()).as("some devices were on the killed primary").isPositive();
        outcome.acknowledged().forEach((imei, acked) -> {
            List<Long> last = acked.subList(Math.max(0, acked.size() - 10), acked.size()).stream()
                    .map(AvlRecord::timestamp).toList();
            assertThat(outcome.stored().get(imei)).as("the last acknowledged records of %s", imei).containsAll(last);
        });
    }
}
