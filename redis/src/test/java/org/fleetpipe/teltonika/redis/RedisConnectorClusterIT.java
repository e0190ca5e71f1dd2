package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.cluster.ClusterNode;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.Test;

/** The shared connection on a real Redis Cluster (3 primaries, 3 replicas) started by the fixture. */
@WithRedisCluster
class RedisConnectorClusterIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final LuaScript SET_BOTH = LuaScript.fromResource("cluster-test/set-both.lua");

    /** One hash tag per primary, found by slot, so the test covers every node. */
    private static List<String> tagPerPrimary(LocalRedisCluster cluster) {
        List<String> tags = new CopyOnWriteArrayList<>();
        Set<ClusterNode> covered = new HashSet<>();
        for (int i = 0; covered.size() < cluster.primaries().size() && i < 1000; i++) {
            String tag = "{" + i + "}";
            if (covered.add(cluster.primaryAtStartFor(SlotHash.getSlot(tag)))) {
                tags.add(tag);
            }
        }
        return tags;
    }

    @Test
    void commandsAndScriptsReachTheNodeOfTheirKeys(LocalRedisCluster cluster) throws Exception {
        try (RedisConnector redis = RedisConnector.connect(cluster.uri(), TIMEOUT)) {
            assertThat(redis.isCluster()).isTrue();
            assertThatThrownBy(redis::connection).isInstanceOf(IllegalStateException.class);
            LuaScript.loadAll(redis.sync(), List.of(SET_BOTH));
            for (String tag : tagPerPrimary(cluster)) {
                String a = "a:" + tag;
                String b = "b:" + tag;
                Long set = Blocking.await(SET_BOTH.<Long>call(redis.async(), ScriptOutputType.INTEGER,
                        new String[] {a, b}, "v" + tag), TIMEOUT);
                assertThat(set).isEqualTo(2);
                assertThat(redis.sync().get(a)).isEqualTo("v" + tag);
                assertThat(redis.async().get(b).get(5, TimeUnit.SECONDS)).isEqualTo("v" + tag);
            }
            assertThat(tagPerPrimary(cluster)).hasSize(3);
        }
    }

    @Test
    void aMessagePublishedOnOneNodeReachesASubscriberOnAnother(LocalRedisCluster cluster) throws Exception {
        try (RedisConnector redis = RedisConnector.connect(cluster.uri(), TIMEOUT)) {
            StatefulRedisPubSubConnection<String, String> pubSub = redis.connectPubSub();
            List<String> heard = new CopyOnWriteArrayList<>();
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    heard.add(channel + "=" + message);
                }
            });
            pubSub.sync().subscribe("instance:events:7");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                redis.sync().publish("instance:events:7", "takeover 356307042441013");
                assertThat(heard).contains("instance:events:7=takeover 356307042441013");
            });
            pubSub.close();
        }
    }
}
