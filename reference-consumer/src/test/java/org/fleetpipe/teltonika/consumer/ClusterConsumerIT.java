package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.Test;

/**
 * On a Redis Cluster (3 primaries, started by the fixture) the partitions live on different
 * nodes, and one XREADGROUP may not name keys of several slots: the program reads each partition
 * on its own, from the servers' URL, and acknowledges every entry.
 */
@WithRedisCluster
class ClusterConsumerIT {

    @Test
    void everyPartitionOnEveryPrimaryIsReadAndAcknowledged(LocalRedisCluster cluster) throws Exception {
        RedisClusterClient client = RedisClusterClient.create(cluster.redisUris());
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            TelemetryLayout layout = new TelemetryLayout("{fleet}:telemetry", 8);
            redis.set("{fleet}:telemetry:partitions", "8");
            for (int seq = 0; seq < 10; seq++) {
                for (int device = 0; device < 24; device++) {
                    redis.xadd(layout.streamOf(PartitionedStreamIT.imei(device)), PartitionedStreamIT.record(device, seq));
                }
            }

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit = ReferenceConsumerMain.run(new String[] {"--redis-url", cluster.uri(), "--stream",
                    "{fleet}:telemetry", "--group", "cl", "--until-idle", "2s", "--block", "400ms"},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));

            String printed = out.toString(StandardCharsets.UTF_8);
            assertThat(exit).as(printed).isZero();
            assertThat(printed).contains("created group cl on 8 of 8 partition streams fleet:telemetry:{0}..")
                    .contains("read=240 ", "acked=240 ");
            for (String stream : layout.streams()) {
                assertThat(redis.xpending(stream, "cl").getCount()).as("all acknowledged on %s", stream).isZero();
            }
        } finally {
            client.shutdown();
        }
    }
}
