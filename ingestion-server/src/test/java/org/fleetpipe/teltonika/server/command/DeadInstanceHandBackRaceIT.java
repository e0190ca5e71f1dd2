package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.janitor.RegistryJanitor;
import org.fleetpipe.teltonika.janitor.SweepResult;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two janitors (two instances, each on its own connection) handing back one dead instance's
 * in-flight commands at the same moment, round after round: every command ends up exactly once at
 * the head of its device's queue, or, sent as often as it may be, failed as {@code attempts} with
 * exactly one dead letter; none lost, none doubled, and the two janitors' counts add up to exactly that.
 */
@WithRedis
class DeadInstanceHandBackRaceIT {

    private static final int ROUNDS = 100;
    private static final long ROUNDS_SECONDS = 90;
    private static final int DEVICES = 60;
    private static final String DEAD = "dead-9";
    private static final String LIVE = "live-1";
    /** Small pages: each janitor makes several hand-back calls per pass, so their calls interleave. */
    private static final int SCAN_COUNT = 10;

    /**
     * Redis returns a hash kept in its compact encoding (up to hash-max-ziplist-entries, 512) whole
     * from one HSCAN: the test keeps every hash a real hash table meanwhile, so HSCAN pages it and
     * the two janitors' pages interleave.
     */
    private static final String COMPACT_HASH_LIMIT = "hash-max-ziplist-entries";

    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private RedisCommands<String, String> redis;
    private ExecutorService pool;
    private String compactHashLimit;

    @BeforeEach
    void connect(RedisFixture fixture) {
        for (int i = 0; i < 3; i++) {
            connections.add(fixture.client().connect());
        }
        redis = connections.get(0).sync();
        pool = Executors.newFixedThreadPool(2);
        compactHashLimit = redis.configGet(COMPACT_HASH_LIMIT).get(COMPACT_HASH_LIMIT);
        redis.configSet(COMPACT_HASH_LIMIT, "0");
    }

    @AfterEach
    void close() {
        redis.configSet(COMPACT_HASH_LIMIT, compactHashLimit);
        pool.shutdownNow();
        connections.forEach(StatefulRedisConnection::close);
    }

    @Test
    void twoJanitorsAtOnce_everyCommandOfTheDeadInstanceEndsUpExactlyOnce() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RegistryJanitor first = DeadInstanceFixture.janitor(connections.get(1), meters, false, SCAN_COUNT);
        RegistryJanitor second = DeadInstanceFixture.janitor(connections.get(2), meters, false, SCAN_COUNT);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ROUNDS_SECONDS);
        long failedTotal = 0;
        int shared = 0;
        int rounds = 0;
        for (; rounds < ROUNDS && System.nanoTime() < deadline; rounds++) {
            String context = "seed " + seed + ", round " + rounds;
            redis.flushdb();
            redis.hset("instance:heartbeat:" + LIVE, "host", "h");
            List<String> handedBack = new ArrayList<>();
            List<String> usedUp = new ArrayList<>();
            for (int d = 0; d < DEVICES; d++) {
                String imei = DeadInstanceFixture.imei(d);
                String id = "r" + rounds + "-c" + d;
                boolean lastSend = random.nextInt(5) == 0;
                DeadInstanceFixture.sentCommand(redis, DEAD, imei, id, lastSend ? 3 : 1, 3);
                (lastSend ? usedUp : handedBack).add(id);
                if (random.nextBoolean()) {
                    // Another command waits behind it; the handed-back one must go in front.
                    redis.rpush("commands:queue:" + imei, "waiting-" + d);
                }
                if (random.nextBoolean()) {
                    redis.hset("connections:registry", imei, random.nextBoolean() ? LIVE : DEAD);
                }
            }

            CountDownLatch go = new CountDownLatch(1);
            Future<SweepResult> a = pool.submit(() -> gated(go, first));
            Future<SweepResult> b = pool.submit(() -> gated(go, second));
            go.countDown();
            SweepResult one = a.get(60, TimeUnit.SECONDS);
            SweepResult other = b.get(60, TimeUnit.SECONDS);

            assertThat(one.leftoversHandedBack() + other.leftoversHandedBack()).as("handed back, counted (%s)", context)
                    .isEqualTo(handedBack.size());
            assertThat(one.leftoversFailed() + other.leftoversFailed()).as("failed, counted (%s)", context)
                    .isEqualTo(usedUp.size());
            List<String> letters = redis.zrange("dlq:commands", 0, -1);
            for (int d = 0; d < DEVICES; d++) {
                String imei = DeadInstanceFixture.imei(d);
                String id = "r" + rounds + "-c" + d;
                List<String> queue = redis.lrange("commands:queue:" + imei, 0, -1);
                long letterCount = letters.stream().filter(l -> l.contains("\"id\":\"" + id + "\"")).count();
                if (handedBack.contains(id)) {
                    assertThat(Collections.frequency(queue, id)).as("%s queued once (%s)", id, context).isEqualTo(1);
                    assertThat(queue.get(0)).as("%s at the head (%s)", id, context).isEqualTo(id);
                    assertThat(redis.hget("command:" + id, "status")).as("%s (%s)", id, context).isEqualTo("queued");
                    assertThat(letterCount).as("%s no dead letter (%s)", id, context).isZero();
                    assertThat(redis.zscore("commands:queued", imei)).as("%s device queued (%s)", id, context)
                            .isNotNull();
                } else {
                    assertThat(queue).as("%s not queued (%s)", id, context).doesNotContain(id);
                    assertThat(redis.hget("command:" + id, "reason")).as("%s (%s)", id, context)
                            .isEqualTo("attempts");
                    assertThat(letterCount).as("%s one dead letter (%s)", id, context).isEqualTo(1);
                }
                assertThat(queue.stream().filter(q -> q.startsWith("waiting-")).count())
                        .as("the waiting command of %s kept once (%s)", imei, context).isLessThanOrEqualTo(1);
            }
            assertThat(letters).as("no other dead letter (%s)", context).hasSize(usedUp.size());
            assertThat(redis.exists("commands:inflight:" + DEAD)).as("nothing left in flight (%s)", context).isZero();
            assertThat(redis.sismember("commands:inflight-instances", DEAD)).as(context).isFalse();
            failedTotal += usedUp.size();
            if (one.leftoversHandedBack() + one.leftoversFailed() > 0
                    && other.leftoversHandedBack() + other.leftoversFailed() > 0) {
                shared++;
            }
        }

        assertThat(rounds).as("rounds within the time limit").isGreaterThanOrEqualTo(30);
        assertThat(shared).as("rounds in which both janitors handed back some of the commands: they did race")
                .isPositive();
        assertThat(meters.get("teltonika.commands").tag("outcome", "attempts").counter().count())
                .as("each failure counted once, by whichever janitor did it").isEqualTo((double) failedTotal);
    }

    private static SweepResult gated(CountDownLatch go, RegistryJanitor janitor) throws InterruptedException {
        go.await();
        return janitor.sweepOnce();
    }
}
