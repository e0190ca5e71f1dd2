package org.fleetpipe.teltonika.testkit.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;

@WithRedisCluster
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalRedisClusterIT {

    private static RedisClusterClient clusterClient;
    private static StatefulRedisClusterConnection<String, String> clusterConnection;
    private static RedisClient nodeClient;

    @BeforeAll
    static void connect(LocalRedisCluster cluster) {
        List<RedisURI> seeds = cluster.redisUris();
        // Short: a command queued for the killed primary fails after this, and the next try goes to its successor.
        seeds.forEach(seed -> seed.setTimeout(Duration.ofSeconds(2)));
        clusterClient = RedisClusterClient.create(seeds);
        clusterClient.setOptions(ClusterClientOptions.builder()
                // Not REJECT_COMMANDS: Lettuce 7.7 then also rejects a command to a node whose connection it is
                // still opening (lettuce#3747, #3782), so the first write to each primary, a promoted one too, fails.
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .enablePeriodicRefresh(Duration.ofSeconds(1))
                        .build())
                .build());
        clusterConnection = clusterClient.connect();
        nodeClient = RedisClient.create();
    }

    @AfterAll
    static void disconnect() {
        // Closes the connection too.
        clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        nodeClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Test
    @Order(1)
    void start_whenDefaults_thenThreePrimariesCoverEverySlotAndEachHasItsOwnReplica(LocalRedisCluster cluster) {
        List<ClusterNodeStatus> topology = cluster.topology();
        List<ClusterNodeStatus> primaries = topology.stream().filter(ClusterNodeStatus::primary).toList();
        List<ClusterNodeStatus> replicas = topology.stream().filter(status -> !status.primary()).toList();

        assertThat(topology).hasSize(6).noneMatch(ClusterNodeStatus::failed);
        assertThat(primaries).hasSize(3);
        assertThat(primaries.stream().flatMap(status -> status.slots().stream())
                .flatMapToInt(range -> IntStream.rangeClosed(range.from(), range.to())).sorted().toArray())
                .as("every slot exactly once")
                .isEqualTo(IntStream.range(0, SlotRange.SLOTS).toArray());
        assertThat(replicas).hasSize(3).allMatch(status -> status.slots().isEmpty());
        assertThat(replicas.stream().map(ClusterNodeStatus::primaryId).collect(Collectors.toSet()))
                .as("one replica under each primary")
                .isEqualTo(primaries.stream().map(ClusterNodeStatus::id).collect(Collectors.toSet()));
        assertThat(cluster.primaries()).extracting(ClusterNode::slots).containsExactly(
                List.of(new SlotRange(0, 5460)), List.of(new SlotRange(5461, 10921)),
                List.of(new SlotRange(10922, 16383)));
        for (ClusterNode node : cluster.nodes()) {
            try (StatefulRedisConnection<String, String> connection = connect(node)) {
                assertThat(connection.sync().clusterInfo()).contains("cluster_state:ok", "cluster_known_nodes:6");
                assertThat(connection.sync().clusterMyId()).isEqualTo(node.id());
            }
        }
        assertThat(cluster.nodes().stream().map(this::workingDirectory).distinct()).hasSize(6);
        assertThat(cluster.primaryAtStartFor(0)).isEqualTo(cluster.primaries().get(0));
        assertThat(cluster.primaryAtStartFor(16383)).isEqualTo(cluster.primaries().get(2));
        assertThat(cluster.uri()).isEqualTo("redis-cluster://" + String.join(",", cluster.seeds()));
        assertThat(cluster.seeds()).hasSize(6).allMatch(seed -> seed.matches("127\\.0\\.0\\.1:\\d+"));
    }

    @Test
    @Order(2)
    void clusterClient_whenKeysOfEachPrimarysSlots_thenEachIsWrittenOnItsPrimaryAndReadBack(LocalRedisCluster cluster) {
        RedisAdvancedClusterCommands<String, String> commands = clusterConnection.sync();

        for (ClusterNode primary : cluster.primaries()) {
            String key = keyOn(primary, "k");
            commands.set(key, "on " + primary.port());

            assertThat(commands.get(key)).isEqualTo("on " + primary.port());
            try (StatefulRedisConnection<String, String> direct = connect(primary)) {
                // Without a MOVED error: the key is in this primary's own keyspace.
                assertThat(direct.sync().get(key)).isEqualTo("on " + primary.port());
            }
        }
    }

    @Test
    @Order(3)
    void flushAll_whenKeysOnEveryPrimary_thenNoneLeft(LocalRedisCluster cluster) {
        RedisAdvancedClusterCommands<String, String> commands = clusterConnection.sync();
        assertThat(cluster.primaries()).as("the previous test's keys, flushed before this test")
                .allMatch(primary -> commands.exists(keyOn(primary, "k")) == 0);
        List<String> keys = cluster.primaries().stream().map(primary -> keyOn(primary, "flush")).toList();
        keys.forEach(key -> commands.set(key, "x"));

        cluster.flushAll();

        assertThat(keys).allMatch(key -> commands.exists(key) == 0);
    }

    @Test
    @Order(4) // last: the killed node stays dead for the rest of the class
    void kill_whenPrimaryOfASlotDies_thenItsReplicaTakesOverWithTheReplicatedKeys(LocalRedisCluster cluster) {
        ClusterNode primary = cluster.primaries().get(1);
        ClusterNode replica = cluster.replicasOf(primary).get(0);
        String tag = keyOn(primary, "failover");
        int slot = SlotHash.getSlot(tag);
        List<String> keys = IntStream.range(0, 20).mapToObj(i -> tag + ":" + i).toList();
        try (StatefulRedisConnection<String, String> direct = connect(primary)) {
            keys.forEach(key -> direct.sync().set(key, "before"));
            // The kill must not outrun replication: only keys the replica has acknowledged survive a crash.
            assertThat(direct.sync().waitForReplication(1, 5000)).isEqualTo(1L);
        }
        assertThat(cluster.servingSlot(slot)).contains(primary);

        cluster.kill(primary);

        assertThat(cluster.isAlive(primary)).isFalse();
        await("replica " + replica.hostAndPort() + " promoted").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> cluster.servingSlot(slot).filter(replica::equals).isPresent());
        await("a write to the slot through the cluster client").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> writes(tag + ":after"));
        RedisAdvancedClusterCommands<String, String> commands = clusterConnection.sync();
        assertThat(commands.mget(keys.toArray(String[]::new)))
                .extracting(value -> value.getValueOrElse(null))
                .containsOnly("before");
        assertThat(commands.get(tag + ":after")).isEqualTo("written");
        ClusterNodeStatus promoted = cluster.topology().stream().filter(status -> status.id().equals(replica.id()))
                .findFirst().orElseThrow();
        assertThat(promoted.primary()).isTrue();
        assertThat(promoted.slots()).isEqualTo(primary.slots());
    }

    @Test
    @Order(5)
    void close_whenRunning_thenNoProcessIsLeftAndTheDirectoriesAreGone() {
        LocalRedisCluster single = LocalRedisCluster.builder().primaries(1).replicasPerPrimary(0).build().start();
        ClusterNode node = single.nodes().get(0);
        assertThat(node.slots()).containsExactly(new SlotRange(0, 16383));
        Path dir = workingDirectory(node);
        assertThat(dir.resolve("nodes.conf")).exists();

        single.close();
        single.close();

        assertThat(single.isAlive(node)).isFalse();
        assertThat(dir).doesNotExist();
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(child -> child.info().arguments().map(List::of).orElse(List.of())
                        .contains(Integer.toString(node.port()))))
                .isEmpty();
    }

    private boolean writes(String key) {
        try {
            clusterConnection.sync().set(key, "written");
            return true;
        } catch (RedisException stillFailingOver) {
            return false;
        }
    }

    // A key with a hash tag that maps to one of the node's slots, found by trying tags in turn.
    private static String keyOn(ClusterNode primary, String prefix) {
        for (int i = 0; i < 100_000; i++) {
            String key = prefix + "{" + i + "}";
            if (primary.owns(SlotHash.getSlot(key))) {
                return key;
            }
        }
        throw new AssertionError("no key found for " + primary.slots());
    }

    private Path workingDirectory(ClusterNode node) {
        try (StatefulRedisConnection<String, String> connection = connect(node)) {
            Map<String, String> dir = connection.sync().configGet("dir");
            return Path.of(dir.get("dir"));
        }
    }

    private static StatefulRedisConnection<String, String> connect(ClusterNode node) {
        RedisURI uri = RedisURI.create(node.uri());
        uri.setTimeout(Duration.ofSeconds(5));
        return nodeClient.connect(uri);
    }
}
