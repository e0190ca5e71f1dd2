package org.fleetpipe.teltonika.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@WithRedis
class RedisConnectionRegistryIT {

    private static final Duration DEVICE_INFO_TTL = Duration.ofHours(1);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Imei IMEI = new Imei("356307042441013");
    private static final String A = "pod-a-1";
    private static final String B = "pod-b-2";
    private static final String C = "pod-c-3";
    private static final String MARKER = "marker";

    private final RedisFixture redis;
    private final RedisKeys keys = new RedisKeys("");
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> sync;
    private StatefulRedisPubSubConnection<String, String> subscriber;
    private final List<String> published = new CopyOnWriteArrayList<>();

    RedisConnectionRegistryIT(RedisFixture redis) {
        this.redis = redis;
    }

    @BeforeEach
    void connect() {
        connection = redis.client().connect();
        sync = connection.sync();
    }

    @AfterEach
    void disconnect() {
        if (subscriber != null) {
            subscriber.close();
        }
        connection.close();
    }

    @Test
    void claim_whenNobodyOwnsTheDevice_thenOwnerAndDeviceInfoSetAndNoPreviousOwner() {
        long before = System.currentTimeMillis();

        String previous = join(registry(A).claim(IMEI, "10.0.0.7:40001"));

        long after = System.currentTimeMillis();
        assertThat(previous).isNull();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(A);
        assertThat(join(registry(B).ownerOf(IMEI))).isEqualTo(A);
        Map<String, String> info = sync.hgetall(keys.deviceInfo(IMEI.value()));
        assertThat(info).containsEntry("instance", A).containsEntry("remote", "10.0.0.7:40001");
        assertThat(Long.parseLong(info.get("connected_at"))).isBetween(before, after);
        // Without a TTL a device that never comes back would keep its info hash forever.
        assertThat(sync.pttl(keys.deviceInfo(IMEI.value()))).isPositive()
                .isLessThanOrEqualTo(DEVICE_INFO_TTL.toMillis());
    }

    @Test
    void releaseIfOwner_ofAnOlderConnectionOnTheSameInstance_keepsTheNewerConnectionsClaim() {
        // Both connections carry the same instance id; only the session tells them apart. A late
        // release of the older one (e.g. its script retried after NOSCRIPT) must not remove the claim.
        join(registry(A).claim(IMEI, "10.0.0.7:40001", "connection-1"));
        join(registry(A).claim(IMEI, "10.0.0.7:40002", "connection-2"));

        assertThat(join(registry(A).releaseIfOwner(IMEI, "connection-1"))).isFalse();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(A);

        assertThat(join(registry(A).releaseIfOwner(IMEI, "connection-2"))).isTrue();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isNull();
    }

    @Test
    void claim_whenAnotherInstanceOwnedTheDevice_thenLastLoginWinsAndPreviousOwnerReturned() {
        join(registry(A).claim(IMEI, "10.0.0.7:40001"));

        String previous = join(registry(B).claim(IMEI, "10.0.0.8:40002"));

        assertThat(previous).isEqualTo(A);
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(B);
        assertThat(sync.hgetall(keys.deviceInfo(IMEI.value())))
                .containsEntry("instance", B).containsEntry("remote", "10.0.0.8:40002");
    }

    @Test
    void claim_whenAnotherInstanceOwnedTheDevice_thenExactlyOneTakeoverOnPreviousOwnersChannel() {
        join(registry(A).claim(IMEI, "10.0.0.7:40001"));
        subscribeToEveryEventsChannel();

        join(registry(B).claim(IMEI, "10.0.0.8:40002"));

        assertThat(publishedUpToMarker())
                .containsExactly(keys.instanceEvents(A) + " takeover " + IMEI.value(), markerLine());
    }

    @Test
    void claim_whenThePreviousOwnerIsThisInstance_thenNoTakeoverPublished() {
        join(registry(B).claim(IMEI, "10.0.0.8:40002"));
        subscribeToEveryEventsChannel();

        // A reconnect to the same instance: telling ourselves to close the device would cut the new connection.
        String previous = join(registry(B).claim(IMEI, "10.0.0.8:40003"));

        assertThat(previous).isEqualTo(B);
        assertThat(publishedUpToMarker()).containsExactly(markerLine());
    }

    @Test
    void claim_whenNobodyOwnedTheDevice_thenNoTakeoverPublished() {
        subscribeToEveryEventsChannel();

        join(registry(A).claim(IMEI, "10.0.0.7:40001"));

        assertThat(publishedUpToMarker()).containsExactly(markerLine());
    }

    @Test
    void claim_whenPreviousOwnerListensWithInstanceEvents_thenItHearsTheImei() {
        join(registry(A).claim(IMEI, "10.0.0.7:40001"));
        List<String> heardByA = new CopyOnWriteArrayList<>();
        try (InstanceEvents events = new InstanceEvents(redis.client().connectPubSub(), keys, WAIT)
                .on(InstanceEvent.TAKEOVER, heardByA::add)) {
            events.listen(A);

            join(registry(B).claim(IMEI, "10.0.0.8:40002"));

            await().atMost(WAIT).untilAsserted(() -> assertThat(heardByA).containsExactly(IMEI.value()));
        }
    }

    @Test
    void releaseIfOwner_whenThisInstanceOwnsTheDevice_thenEntryRemovedAndTrue() {
        join(registry(A).claim(IMEI, "10.0.0.7:40001"));

        boolean released = join(registry(A).releaseIfOwner(IMEI));

        assertThat(released).isTrue();
        assertThat(sync.hexists(keys.registry(), IMEI.value())).isFalse();
        assertThat(join(registry(A).ownerOf(IMEI))).isNull();
    }

    @Test
    void releaseIfOwner_whenAnotherInstanceTookTheDeviceOver_thenFalseAndEntryUntouched() {
        join(registry(A).claim(IMEI, "10.0.0.7:40001"));
        join(registry(B).claim(IMEI, "10.0.0.8:40002"));

        // A's old connection closes after the device already reconnected to B.
        boolean released = join(registry(A).releaseIfOwner(IMEI));

        assertThat(released).isFalse();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(B);
    }

    @Test
    void releaseIfOwner_whenNoEntry_thenFalse() {
        assertThat(join(registry(A).releaseIfOwner(IMEI))).isFalse();
        assertThat(sync.exists(keys.registry())).isZero();
    }

    @Test
    void reclaim_whenEntryAbsent_thenKeptUnderTheNewId() {
        boolean kept = join(registry(B).reclaim(IMEI, A, B));

        assertThat(kept).isTrue();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(B);
    }

    @Test
    void reclaim_whenEntryStillNamesTheOldId_thenMovedToTheNewId() {
        join(registry(A).claim(IMEI, "10.0.0.7:40001"));

        boolean kept = join(registry(B).reclaim(IMEI, A, B));

        assertThat(kept).isTrue();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(B);
    }

    @Test
    void reclaim_whenAThirdInstanceTookTheDevice_thenFalseAndEntryUntouched() {
        join(registry(C).claim(IMEI, "10.0.0.9:40003"));

        boolean kept = join(registry(B).reclaim(IMEI, A, B));

        assertThat(kept).isFalse();
        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(C);
    }

    @Test
    void everyScript_whenRedisScriptCacheWasFlushed_thenFallsBackToEvalAndWorks() {
        // SCRIPT FLUSH before each call stands for a Redis that restarted or failed over since the script was cached.
        sync.scriptFlush();
        assertThat(join(registry(A).claim(IMEI, "10.0.0.7:40001"))).isNull();
        sync.scriptFlush();
        assertThat(join(registry(B).claim(IMEI, "10.0.0.8:40002"))).isEqualTo(A);
        sync.scriptFlush();
        assertThat(join(registry(A).releaseIfOwner(IMEI))).isFalse();
        sync.scriptFlush();
        assertThat(join(registry(B).releaseIfOwner(IMEI))).isTrue();
        sync.scriptFlush();
        assertThat(join(registry(C).reclaim(IMEI, B, C))).isTrue();

        assertThat(sync.hget(keys.registry(), IMEI.value())).isEqualTo(C);
        // The fallback EVAL caches the body, so the next call goes by SHA again.
        assertThat(sync.scriptExists(RegistryScripts.RECLAIM.sha())).containsExactly(true);
    }

    @Test
    void everyScript_whenNamespacePrefixSet_thenEveryKeyAndChannelIsPrefixed() {
        RedisKeys prefixed = new RedisKeys("tenant7:");
        subscribeToEveryEventsChannel("*");

        join(registry(A, prefixed).claim(IMEI, "10.0.0.7:40001"));
        join(registry(B, prefixed).claim(IMEI, "10.0.0.8:40002"));
        assertThat(join(registry(A, prefixed).releaseIfOwner(IMEI))).isFalse();
        assertThat(join(registry(C, prefixed).reclaim(IMEI, B, C))).isTrue();

        assertThat(sync.keys("*")).containsExactlyInAnyOrder("tenant7:connections:registry",
                "tenant7:device:info:" + IMEI.value());
        assertThat(join(registry(C, prefixed).ownerOf(IMEI))).isEqualTo(C);
        assertThat(join(registry(C).ownerOf(IMEI))).as("the unprefixed registry").isNull();
        assertThat(publishedUpToMarker())
                .containsExactly("tenant7:instance:events:" + A + " takeover " + IMEI.value(), markerLine());
    }

    private RedisConnectionRegistry registry(String id) {
        return registry(id, keys);
    }

    private RedisConnectionRegistry registry(String id, RedisKeys keys) {
        return new RedisConnectionRegistry(connection.async(), keys, new InstanceIdentity(id, "test-host", 0L, "test"),
                DEVICE_INFO_TTL);
    }

    private void subscribeToEveryEventsChannel() {
        subscribeToEveryEventsChannel(keys.instanceEventsPrefix() + "*");
    }

    // A pattern on every channel, not just the expected one: a takeover sent to the wrong instance must show too.
    private void subscribeToEveryEventsChannel(String pattern) {
        subscriber = redis.client().connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                published.add(channel + " " + message);
            }
        });
        subscriber.sync().psubscribe(pattern);
    }

    // Redis delivers one subscriber's messages in publish order, so once our own marker arrived every takeover
    // published before it has arrived too: "exactly one" and "none" need no waiting for silence.
    private List<String> publishedUpToMarker() {
        sync.publish(keys.instanceEventsPrefix() + MARKER, MARKER);
        await().atMost(WAIT).until(() -> published.contains(markerLine()));
        return List.copyOf(published);
    }

    private String markerLine() {
        return keys.instanceEventsPrefix() + MARKER + " " + MARKER;
    }

    private static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("Redis call failed: " + e, e);
        }
    }
}
