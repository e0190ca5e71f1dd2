package org.fleetpipe.teltonika.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@WithRedis
class HeartbeatRenewerIT {

    private static final Duration TTL = Duration.ofMillis(600);
    private static final Duration INTERVAL = Duration.ofMillis(200);
    // Generous: a renewal that Redis runs but that times out here makes the next one look foreign (see the
    // disabled stall test), which a busy two-core machine must not turn into a flaky test.
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
    // Shorter than the freeze outlasts the TTL, so the renewal in flight at thaw time began after the TTL had passed.
    private static final Duration FREEZE_CALL_TIMEOUT = Duration.ofMillis(300);
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int DEVICES = 7;

    private final RedisFixture redis;
    private final RedisKeys keys = new RedisKeys("");
    private final List<HeartbeatRenewer> renewers = new ArrayList<>();
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> sync;

    HeartbeatRenewerIT(RedisFixture redis) {
        this.redis = redis;
    }

    @BeforeEach
    void connect() {
        connection = redis.client().connect();
        sync = connection.sync();
    }

    @AfterEach
    void stopEverything() {
        renewers.forEach(HeartbeatRenewer::close);
        connections.forEach(StatefulRedisConnection::close);
        connection.close();
    }

    @Test
    void create_whenKeyAbsent_thenWritesEveryFieldWithTtlAndKnowsTheId() {
        InstanceIdentity identity = newIdentity();
        long before = System.currentTimeMillis();

        renewer(identity).create();

        long after = System.currentTimeMillis();
        Map<String, String> beat = sync.hgetall(keys.heartbeat(identity.id()));
        assertThat(beat).containsOnlyKeys("host", "pid", "started", "renewed", "tcp", "http", "version", "devices")
                .containsEntry("host", "test-host")
                .containsEntry("pid", Long.toString(ProcessHandle.current().pid()))
                .containsEntry("started", "1700000000000")
                .containsEntry("tcp", "5027")
                .containsEntry("http", "8080")
                .containsEntry("version", "9.9.9")
                .containsEntry("devices", Integer.toString(DEVICES));
        assertThat(Long.parseLong(beat.get("renewed"))).isBetween(before, after);
        assertThat(sync.pttl(keys.heartbeat(identity.id()))).isPositive().isLessThanOrEqualTo(TTL.toMillis());
        assertThat(sync.zscore(keys.instanceIds(), identity.id())).isEqualTo(Double.parseDouble(beat.get("renewed")));
    }

    @Test
    void create_whenHeartbeatKeyAlreadyExists_thenInstanceConflictNamingTheKeyAndNothingWritten() {
        InstanceIdentity identity = newIdentity();
        sync.hset(keys.heartbeat(identity.id()), "host", "someone-else");

        assertThatThrownBy(renewer(identity)::create)
                .isInstanceOf(InstanceConflictException.class)
                .hasMessageContaining(keys.heartbeat(identity.id()));

        assertThat(sync.hgetall(keys.heartbeat(identity.id()))).containsExactly(Map.entry("host", "someone-else"));
        assertThat(sync.pttl(keys.heartbeat(identity.id()))).as("no TTL put on the other writer's key").isEqualTo(-1);
        assertThat(sync.zscore(keys.instanceIds(), identity.id())).isNull();
    }

    @Test
    void renewal_whenRunning_thenKeyOutlivesSeveralTtlsAndRenewedAdvances() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        String firstRenewed = sync.hget(keys.heartbeat(identity.id()), "renewed");
        renewer.start(listener);

        await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(3).plus(WAIT))
                .until(() -> sync.exists(keys.heartbeat(identity.id())) == 1L);

        assertThat(sync.hget(keys.heartbeat(identity.id()), "renewed")).isNotEqualTo(firstRenewed);
        assertThat(renewer.isFresh()).isTrue();
        assertThat(listener.calls).isEmpty();
    }

    @Test
    void lostHeartbeat_whenKeyDeletedWhileRedisAnswers_thenExpiredNotRemoteShutdown() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        // What a restore of an older snapshot, a failover to a lagging replica or an eviction looks like from here.
        sync.del(keys.heartbeat(identity.id()));

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("expired " + identity.id());
        assertThat(listener.reasons).singleElement().asString().contains("gone although Redis answered");
    }

    @Test
    void shutdownMarker_whenSet_thenRemoteShutdownAndTheHeartbeatIsNotRenewedAgain() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        sync.set(keys.shutdownMarker(identity.id()), "operator");

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("remoteShutdown " + identity.id());
        assertThat(renewer.isFresh()).isFalse();
        String renewed = sync.hget(keys.heartbeat(identity.id()), "renewed");
        // Left to expire (its TTL is shorter than this wait): never renewed, never a second verdict.
        await().during(INTERVAL.multipliedBy(3)).atMost(WAIT).until(() -> {
            String now = sync.hget(keys.heartbeat(identity.id()), "renewed");
            return listener.calls.size() == 1 && (now == null || now.equals(renewed));
        });

        // The heartbeat may have expired meanwhile (heartbeat=0 or 1); the marker was there to clear.
        assertThat(renewer.retire()).hasValueSatisfying(retired -> {
            assertThat(retired.ids()).isEqualTo(1);
            assertThat(retired.marker()).isEqualTo(1);
        });

        assertThat(sync.exists(keys.heartbeat(identity.id()), keys.shutdownMarker(identity.id())))
                .as("the stop clears the heartbeat and the marker").isZero();
    }

    @Test
    void shutdownMarker_whenTheHeartbeatIsGoneToo_thenStillARemoteShutdown() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();

        sync.set(keys.shutdownMarker(identity.id()), "operator");
        sync.del(keys.heartbeat(identity.id()));
        renewer.start(listener);

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("remoteShutdown " + identity.id());
    }

    @Test
    void create_whenAStaleMarkerOfTheNewIdExists_thenRemovesIt() {
        InstanceIdentity identity = newIdentity();
        // A restore took instance:seq back, and with it a marker of an id now handed out again.
        sync.set(keys.shutdownMarker(identity.id()), "meant for an earlier process");
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();

        renewer.create();
        renewer.start(listener);

        assertThat(sync.exists(keys.shutdownMarker(identity.id()))).isZero();
        await().during(INTERVAL.multipliedBy(3)).atMost(WAIT).until(() -> listener.calls.isEmpty());
    }

    @Test
    void remoteShutdown_request_setsTheMarkerOfALiveInstanceOnly_andTheInstanceStops() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);
        RemoteShutdown shutdown = new RemoteShutdown(connection.async(), keys);

        assertThat(shutdown.request("nobody-99", "test").toCompletableFuture().join()).isFalse();
        assertThat(sync.exists(keys.shutdownMarker("nobody-99"))).isZero();
        assertThat(shutdown.request(identity.id(), "test").toCompletableFuture().join()).isTrue();

        assertThat(sync.get(keys.shutdownMarker(identity.id()))).startsWith("test at ");
        assertThat(sync.pttl(keys.shutdownMarker(identity.id()))).isPositive()
                .isLessThanOrEqualTo(RemoteShutdown.MARKER_TTL.toMillis());
        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls)
                .containsExactly("remoteShutdown " + identity.id()));
    }

    @Test
    void lostHeartbeat_whenRenewedRewrittenBySomeoneElse_thenExpiredAndTheirValueLeftAlone() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        sync.hset(keys.heartbeat(identity.id()), "renewed", "written-by-someone-else");

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("expired " + identity.id());
        assertThat(listener.reasons).singleElement().asString().contains("did not write");
        assertThat(sync.hget(keys.heartbeat(identity.id()), "renewed")).isEqualTo("written-by-someone-else");
    }

    @Test
    void deletedHeartbeat_whenDeleteMeansShutdown_thenRemoteShutdownAndNotRenewedAgain() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity, HeartbeatDeleteMeans.SHUTDOWN);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        // The operations design's remote shutdown: the operator deletes the heartbeat.
        sync.del(keys.heartbeat(identity.id()));

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("remoteShutdown " + identity.id());
        assertThat(listener.reasons).singleElement().asString().contains("deleted");
        await().during(INTERVAL.multipliedBy(3)).atMost(WAIT)
                .until(() -> listener.calls.size() == 1 && sync.exists(keys.heartbeat(identity.id())) == 0L);
    }

    @Test
    void lostHeartbeat_whenDeleteMeansShutdownButRedisCameBackEmpty_thenExpiredNotRemoteShutdown() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity, HeartbeatDeleteMeans.SHUTDOWN);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        // Nobody deleted one heartbeat: every key is gone, instance:seq too.
        sync.flushall();

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("expired " + identity.id());
        assertThat(listener.reasons).singleElement().asString().contains("empty");
    }

    @Test
    void lostHeartbeat_whenRedisCameBackEmpty_thenExpiredNotRemoteShutdown() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        // Data loss (a restart without persistence, a failover to an empty replica) takes instance:seq along, which
        // tells it apart from an operator deleting one heartbeat.
        sync.flushall();

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("expired " + identity.id());
        assertThat(listener.reasons).singleElement().asString().contains("empty");
    }

    @Test
    void lostHeartbeat_whenRedisUnreachableForLongerThanTheTtl_thenExpired() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity, TTL, INTERVAL, FREEZE_CALL_TIMEOUT);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);
        await().atMost(WAIT).until(() -> renewer.lastRenewedAt() > 0 && renewer.isFresh());

        redis.freeze();
        // A frozen Redis shows nothing, so the wait is on our own clock: past the TTL plus a whole call timeout since
        // the last renewal, so that the key expired and the renewal in flight at thaw time began after the TTL ran out.
        long frozenFor = TTL.plus(FREEZE_CALL_TIMEOUT).multipliedBy(2).toMillis();
        await().atMost(WAIT).until(() -> System.currentTimeMillis() - renewer.lastRenewedAt() > frozenFor);
        redis.thaw();

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("expired " + identity.id());
        assertThat(listener.reasons).singleElement().asString().contains("unreachable");
        assertThat(sync.exists(keys.heartbeat(identity.id()))).isZero();
    }

    @Test
    void lostHeartbeat_whenRenewalInFlightWhileRedisStallsPastTheTtl_thenExpiredNotRemoteShutdown() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity, TTL, INTERVAL, Duration.ofSeconds(5));
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);
        await().atMost(WAIT).until(() -> renewer.lastRenewedAt() > 0 && renewer.isFresh());

        redis.freeze();
        // Nothing to observe while Redis is frozen: wait on our own clock until the key's TTL has surely passed, well
        // within the 5 s call timeout so that the renewal sent after the freeze is still waiting for its answer.
        long frozenFor = TTL.multipliedBy(2).toMillis();
        await().atMost(WAIT).until(() -> System.currentTimeMillis() - renewer.lastRenewedAt() > frozenFor);
        redis.thaw();

        await().atMost(WAIT).untilAsserted(() -> assertThat(listener.calls).isNotEmpty());
        assertThat(listener.calls).containsExactly("expired " + identity.id());
    }

    @Test
    void renewal_whenRedisStallsLongerThanTheCallTimeoutButShorterThanTheTtl_thenHeartbeatKept() {
        Duration ttl = Duration.ofSeconds(4);
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity, ttl, INTERVAL, Duration.ofMillis(150));
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);
        await().atMost(WAIT).until(() -> renewer.lastRenewedAt() > 0 && renewer.isFresh());

        redis.freeze();
        // Nothing to observe in a frozen Redis; our own clock says when at least two renewals have timed out.
        await().atMost(WAIT).until(() -> System.currentTimeMillis() - renewer.lastRenewedAt() > 1_000);
        redis.thaw();
        long thawedAt = System.currentTimeMillis();

        // Either verdict comes at the first renewals after the thaw; two good ones mean the stall was survived.
        await().atMost(WAIT).until(() -> !listener.calls.isEmpty()
                || renewer.lastRenewedAt() > thawedAt + INTERVAL.multipliedBy(2).toMillis());
        assertThat(listener.calls).isEmpty();
        assertThat(renewer.isFresh()).isTrue();
        assertThat(sync.exists(keys.heartbeat(identity.id()))).isEqualTo(1L);
    }

    @Test
    void adopt_whenCalledAfterExpiry_thenRenewsUnderTheNewIdAndIsFreshAgain() {
        InstanceIdentity identity = newIdentity();
        String oldId = identity.id();
        HeartbeatRenewer renewer = renewer(identity);
        List<String> adopted = new CopyOnWriteArrayList<>();
        // Like the production recovery: a new id from the sequence, adopted on the heartbeat thread.
        Recorder listener = new Recorder((lostId, why) -> {
            String newId = InstanceIdAllocator.allocate(sync, keys, "it");
            renewer.adopt(newId);
            adopted.add(newId);
        });
        renewer.create();
        renewer.start(listener);

        sync.hset(keys.heartbeat(oldId), "renewed", "written-by-someone-else");

        await().atMost(WAIT).until(() -> adopted.size() == 1);
        String newId = adopted.get(0);
        assertThat(newId).isNotEqualTo(oldId);
        assertThat(identity.id()).isEqualTo(newId);
        assertThat(renewer.isFresh()).isTrue();
        String renewedAtAdoption = sync.hget(keys.heartbeat(newId), "renewed");
        await().during(TTL.multipliedBy(3)).atMost(TTL.multipliedBy(3).plus(WAIT))
                .until(() -> sync.exists(keys.heartbeat(newId)) == 1L && renewer.isFresh());
        assertThat(sync.hget(keys.heartbeat(newId), "renewed")).isNotEqualTo(renewedAtAdoption);
        assertThat(sync.zscore(keys.instanceIds(), newId)).isNotNull();
        assertThat(sync.exists(keys.heartbeat(oldId))).as("the old key is left to expire").isZero();
        assertThat(listener.calls).containsExactly("expired " + oldId);
    }

    @Test
    void retire_whenRunning_thenDeletesTheKeyAndForgetsTheIdWithoutCallingTheListener() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);

        assertThat(renewer.retire()).contains(new HeartbeatRenewer.Retired(1, 1, 0));

        assertThat(sync.exists(keys.heartbeat(identity.id()))).isZero();
        assertThat(sync.zscore(keys.instanceIds(), identity.id())).isNull();
        assertThat(renewer.isFresh()).isFalse();
        // No renewal runs after retire(): the deleted key must not bring the instance back under a new id.
        await().during(INTERVAL.multipliedBy(3)).atMost(WAIT).until(() -> listener.calls.isEmpty());
    }

    @Test
    void isFresh_whenRenewalsFailBecauseRedisStopped_thenFalseAndNoListenerCalled() {
        InstanceIdentity identity = newIdentity();
        HeartbeatRenewer renewer = renewer(identity);
        Recorder listener = new Recorder();
        renewer.create();
        renewer.start(listener);
        assertThat(renewer.isFresh()).isTrue();

        redis.stop();

        await().atMost(WAIT).until(() -> !renewer.isFresh());
        // Failed calls prove nothing about the key, so no verdict yet.
        assertThat(listener.calls).isEmpty();
    }

    private InstanceIdentity newIdentity() {
        InstanceIdentity identity = new InstanceIdentity(InstanceIdAllocator.allocate(sync, keys, "it"), "test-host",
                1_700_000_000_000L, "9.9.9");
        identity.listeningOn(5027, 8080);
        return identity;
    }

    private HeartbeatRenewer renewer(InstanceIdentity identity) {
        return renewer(identity, TTL, INTERVAL, CALL_TIMEOUT);
    }

    private HeartbeatRenewer renewer(InstanceIdentity identity, HeartbeatDeleteMeans deleteMeans) {
        return renewer(identity, TTL, INTERVAL, CALL_TIMEOUT, deleteMeans);
    }

    private HeartbeatRenewer renewer(InstanceIdentity identity, Duration ttl, Duration interval, Duration callTimeout) {
        return renewer(identity, ttl, interval, callTimeout, HeartbeatDeleteMeans.EXPIRY);
    }

    // Its own connection, like production's: the test's connection stays free for inspecting Redis.
    private HeartbeatRenewer renewer(InstanceIdentity identity, Duration ttl, Duration interval, Duration callTimeout,
                                     HeartbeatDeleteMeans deleteMeans) {
        StatefulRedisConnection<String, String> own = redis.client().connect();
        HeartbeatRenewer renewer = new HeartbeatRenewer(own.async(), keys, identity, ttl, interval, callTimeout, 100,
                () -> DEVICES, deleteMeans);
        renewers.add(renewer);
        connections.add(own);
        return renewer;
    }

    /** Records the verdicts in order; {@code onExpired} lets a test recover like production does. */
    private static final class Recorder implements HeartbeatRenewer.Listener {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<String> reasons = new CopyOnWriteArrayList<>();
        private final BiConsumer<String, String> onExpired;

        Recorder() {
            this((id, why) -> {
            });
        }

        Recorder(BiConsumer<String, String> onExpired) {
            this.onExpired = onExpired;
        }

        @Override
        public void remoteShutdown(String id, String why) {
            calls.add("remoteShutdown " + id);
            reasons.add(why);
        }

        @Override
        public void expired(String oldId, String why) {
            calls.add("expired " + oldId);
            reasons.add(why);
            onExpired.accept(oldId, why);
        }
    }
}
