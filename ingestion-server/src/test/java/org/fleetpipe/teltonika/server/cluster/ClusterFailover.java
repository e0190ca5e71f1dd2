package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.ResendingTracker;
import org.fleetpipe.teltonika.server.testing.PartitionRule;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.cluster.ClusterNode;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;

/**
 * A primary of a Redis Cluster killed (SIGKILL) while trackers send to one server: what the
 * trackers had acknowledged, and what the partitions' streams hold at the end.
 */
final class ClusterFailover {

    static final int PARTITIONS = 8;
    private static final int DEVICES = 12;

    /** Per device: the records acknowledged to it, in order, and the times of its stream entries, in stream order. */
    record Outcome(Map<String, List<AvlRecord>> acknowledged, Map<String, List<Long>> stored, int onKilledPrimary,
                   Map<String, String> lastRecordAt) {
    }

    private ClusterFailover() {
    }

    static Outcome run(LocalRedisCluster cluster, int ackReplicas) throws Exception {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", cluster.uri(), "redis.namespace", "{fleet}:",
                "telemetry.partitions", PARTITIONS, "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0,
                "bind-address", "127.0.0.1", "instance-id-prefix", "f", "telemetry.ack-replicas", ackReplicas));
        settings.put("redis.command-timeout", "2s");
        List<ResendingTracker> trackers = new ArrayList<>();
        try (IngestionServer server = new IngestionServer(SettingsLoader.load(settings)).start()) {
            for (int d = 0; d < DEVICES; d++) {
                trackers.add(ResendingTracker.start(TestImeis.numbered(12_000 + d), server.tcpAddress().getPort(), d));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> trackers.stream().allMatch(t -> t.acknowledged() >= 3));

            // The primary of the first device's partition goes, as with kill -9.
            ClusterNode victim = cluster.servingSlot(slot(trackers.get(0).imei())).orElseThrow();
            int onVictim = 0;
            Map<String, Long> before = new HashMap<>();
            for (ResendingTracker t : trackers) {
                onVictim += victim.owns(slot(t.imei())) ? 1 : 0;
                before.put(t.imei(), t.acknowledged());
            }
            long killedAt = System.currentTimeMillis();
            cluster.kill(victim);

            // Every device acknowledged again, several times, after the promotion.
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                for (ResendingTracker t : trackers) {
                    assertThat(t.acknowledged()).as(t.imei()).isGreaterThanOrEqualTo(before.get(t.imei()) + 5);
                    assertThat(t.lastAckAt()).as(t.imei()).isGreaterThan(killedAt);
                }
            });
            for (ResendingTracker t : trackers) {
                t.stop();
            }
            Map<String, List<AvlRecord>> acknowledged = new HashMap<>();
            trackers.forEach(t -> acknowledged.put(t.imei(), t.acknowledgedRecords()));
            return new Outcome(acknowledged, stored(cluster, acknowledged.keySet()), onVictim,
                    lastRecordAt(cluster, acknowledged.keySet()));
        } finally {
            for (ResendingTracker t : trackers) {
                t.stop();
            }
        }
    }

    private static Map<String, List<Long>> stored(LocalRedisCluster cluster, Iterable<String> imeis) {
        RedisClusterClient client = RedisClusterClient.create(cluster.redisUris());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            Map<String, List<Long>> stored = new HashMap<>();
            for (String imei : imeis) {
                List<Long> times = new ArrayList<>();
                for (StreamMessage<String, String> m : connection.sync().xrange(stream(imei), Range.create("-", "+"))) {
                    if (imei.equals(m.getBody().get("imei"))) {
                        times.add(Long.parseLong(m.getBody().get("ts")));
                    }
                }
                stored.put(imei, times);
            }
            return stored;
        } finally {
            client.shutdown();
        }
    }

    /** Each device's {@code last_record_at} in its info hash (null when missing), refreshed apart from the records. */
    private static Map<String, String> lastRecordAt(LocalRedisCluster cluster, Iterable<String> imeis) {
        RedisClusterClient client = RedisClusterClient.create(cluster.redisUris());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            Map<String, String> at = new HashMap<>();
            for (String imei : imeis) {
                at.put(imei, connection.sync().hget("{fleet}:device:info:" + imei, "last_record_at"));
            }
            return at;
        } finally {
            client.shutdown();
        }
    }

    private static int slot(String imei) {
        return SlotHash.getSlot(stream(imei));
    }

    private static String stream(String imei) {
        return "fleet:telemetry:{" + PartitionRule.partitionOf(imei, PARTITIONS) + "}";
    }
}
