package org.fleetpipe.teltonika.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@WithRedis
class InstanceDirectoryIT {

    // Long enough that a "live" heartbeat cannot expire during a test; these tests never renew.
    private static final Duration LIVE_TTL = Duration.ofMinutes(1);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int MAX_KNOWN_IDS = 100;

    private final RedisFixture redis;
    private final RedisKeys keys = new RedisKeys("");
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> sync;
    private InstanceDirectory directory;

    InstanceDirectoryIT(RedisFixture redis) {
        this.redis = redis;
    }

    @BeforeEach
    void connect() {
        connection = redis.client().connect();
        sync = connection.sync();
        directory = new InstanceDirectory(connection.async(), keys);
    }

    @AfterEach
    void disconnect() {
        connection.close();
    }

    @Test
    void live_whenNoKnownIds_thenEmpty() {
        assertThat(join(directory.live())).isEmpty();
        assertThat(join(directory.forgetDead())).isZero();
    }

    @Test
    void live_whenSomeKnownIdsHaveNoHeartbeat_thenOnlyTheLiveOnesWithTheirFieldsOldestFirst() {
        String older = announce("pod-a", LIVE_TTL, MAX_KNOWN_IDS);
        String crashed = crashed("pod-b");
        String newer = announce("pod-c", LIVE_TTL, MAX_KNOWN_IDS);

        Map<String, Map<String, String>> live = join(directory.live());

        assertThat(live).containsOnlyKeys(older, newer);
        assertThat(live.keySet()).containsExactly(older, newer);
        assertThat(live.get(older)).isEqualTo(sync.hgetall(keys.heartbeat(older)))
                .containsEntry("host", "host-pod-a").containsEntry("tcp", "5027").containsEntry("devices", "3")
                .containsKeys("pid", "started", "renewed", "http", "version");
        assertThat(live.get(newer)).containsEntry("host", "host-pod-c");
        assertThat(sync.zscore(keys.instanceIds(), crashed)).as("live() only reads").isNotNull();
    }

    @Test
    void forgetDead_whenLiveAndDeadIdsKnown_thenRemovesOnlyTheDeadAndCountsThem() {
        String live1 = announce("pod-a", LIVE_TTL, MAX_KNOWN_IDS);
        String dead1 = crashed("pod-b");
        String live2 = announce("pod-c", LIVE_TTL, MAX_KNOWN_IDS);
        String dead2 = crashed("pod-d");

        long forgotten = join(directory.forgetDead());

        assertThat(forgotten).isEqualTo(2);
        assertThat(sync.zrange(keys.instanceIds(), 0, -1)).containsExactly(live1, live2).doesNotContain(dead1, dead2);
        assertThat(sync.exists(keys.heartbeat(live1), keys.heartbeat(live2))).as("heartbeats untouched").isEqualTo(2);
    }

    @Test
    void forgetDead_whenEveryKnownIdIsLive_thenNothingRemoved() {
        String a = announce("pod-a", LIVE_TTL, MAX_KNOWN_IDS);
        String b = announce("pod-b", LIVE_TTL, MAX_KNOWN_IDS);

        assertThat(join(directory.forgetDead())).isZero();
        assertThat(sync.zrange(keys.instanceIds(), 0, -1)).containsExactly(a, b);
    }

    @Test
    void forgetDead_whenAHeartbeatExpiredByItsTtl_thenThatIdIsForgotten() {
        String live = announce("pod-a", LIVE_TTL, MAX_KNOWN_IDS);
        // Nobody renews it: the instance went away without retiring.
        String silent = announce("pod-b", Duration.ofMillis(300), MAX_KNOWN_IDS);

        await().atMost(WAIT).until(() -> !join(directory.live()).containsKey(silent));
        long forgotten = join(directory.forgetDead());

        assertThat(forgotten).isEqualTo(1);
        assertThat(sync.zrange(keys.instanceIds(), 0, -1)).containsExactly(live);
        assertThat(join(directory.live())).containsOnlyKeys(live);
    }

    @Test
    void create_whenKnownIdsAtTheirBound_thenDeadIdDroppedAndLiveOneKept() {
        String oldestLive = announce("pod-a", LIVE_TTL, 2);
        String crashed = crashed("pod-b");

        String newest = announce("pod-c", LIVE_TTL, 2);

        assertThat(sync.zrange(keys.instanceIds(), 0, -1)).containsExactly(oldestLive, newest)
                .doesNotContain(crashed);
        assertThat(join(directory.live())).containsOnlyKeys(oldestLive, newest);
    }

    /** Starts an instance the way the server does (allocated id, created heartbeat) without renewing it. */
    private String announce(String prefix, Duration ttl, int maxKnownIds) {
        // Distinct start times, so that "oldest first" is decided by the score and not by a tie on the id.
        long previous = System.currentTimeMillis();
        await().atMost(WAIT).until(() -> System.currentTimeMillis() > previous);
        InstanceIdentity identity = new InstanceIdentity(InstanceIdAllocator.allocate(sync, keys, prefix),
                "host-" + prefix, System.currentTimeMillis(), "9.9.9");
        identity.listeningOn(5027, 8080);
        try (HeartbeatRenewer heartbeat = new HeartbeatRenewer(connection.async(), keys, identity, ttl,
                Duration.ofSeconds(1), WAIT, maxKnownIds, () -> 3)) {
            heartbeat.create();
        }
        return identity.id();
    }

    /** An instance that started and then died: its id is known, its heartbeat gone. */
    private String crashed(String prefix) {
        String id = announce(prefix, LIVE_TTL, MAX_KNOWN_IDS);
        sync.del(keys.heartbeat(id));
        return id;
    }

    private static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("Redis call failed: " + e, e);
        }
    }
}
