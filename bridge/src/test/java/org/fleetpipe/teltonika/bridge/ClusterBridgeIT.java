package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.List;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.Test;

/**
 * Two bridge replicas on a Redis Cluster (3 primaries, started by the fixture) with the telemetry
 * in 8 partitions over the primaries, the servers' namespace {@code {fleet}:}: the replicas split
 * the partitions by lease, read each partition with a call of its own (one XREADGROUP may not span
 * slots), and every record reaches the endpoint once, each device's in stream order.
 */
@WithRedisCluster
class ClusterBridgeIT {

    private static final int DEVICES = 24;
    private static final int PER_DEVICE = 20;

    @Test
    void twoReplicasDeliverEveryPartitionOnEveryPrimary_onceAndInOrder(LocalRedisCluster cluster) throws Exception {
        RedisClusterClient client = RedisClusterClient.create(cluster.redisUris());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect();
             RecordingHttpSink endpoint = new RecordingHttpSink()) {
            RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            TelemetryLayout layout = new TelemetryLayout("{fleet}:telemetry", 8);
            redis.set("{fleet}:telemetry:partitions", "8");

            try (Bridge b1 = start(cluster, endpoint, "b1"); Bridge b2 = start(cluster, endpoint, "b2")) {
                // The group starts at the end of each stream: the fleet writes once both read, 4 partitions each.
                await().atMost(Duration.ofSeconds(20)).until(() -> held(b1) == 4 && held(b2) == 4);
                new TelemetryEntries(redis, layout).addFleet(DEVICES, PER_DEVICE, 0);
                int total = DEVICES * PER_DEVICE;
                await().atMost(Duration.ofSeconds(60)).until(() -> endpoint.distinct() == total);
                await().atMost(Duration.ofSeconds(20)).until(() -> layout.streams().stream()
                        .allMatch(stream -> redis.xpending(stream, "http").getCount() == 0));
                assertThat(endpoint.accepted()).as("none twice").isEqualTo(total);
                for (int device = 0; device < DEVICES; device++) {
                    List<Long> times = endpoint.recordsOf(TelemetryEntries.imei(device)).stream()
                            .map((JsonNode record) -> record.get("ts").longValue()).toList();
                    assertThat(times).as("device %d", device).hasSize(PER_DEVICE).isSorted().doesNotHaveDuplicates();
                }
                assertThat(redis.get("fleet:bridge:lease:http:{0}")).as("the lease lives with its partition")
                        .isIn("b1", "b2");
                assertThat(delivered(b1)).as("both delivered").isPositive();
                assertThat(delivered(b2)).isPositive();
            }
        } finally {
            client.shutdown();
        }
    }

    private static double held(Bridge bridge) {
        return bridge.registry().find("teltonika_bridge_partitions_held").gauge().value();
    }

    private static double delivered(Bridge bridge) {
        return bridge.registry().find("teltonika_bridge_delivered").counter().count();
    }

    private static Bridge start(LocalRedisCluster cluster, RecordingHttpSink endpoint, String consumer)
            throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.http(cluster.uri(), "{fleet}:", consumer, endpoint.url());
        Bridge bridge = new Bridge(settings, BridgeMain.sink(settings));
        bridge.start();
        return bridge;
    }
}
