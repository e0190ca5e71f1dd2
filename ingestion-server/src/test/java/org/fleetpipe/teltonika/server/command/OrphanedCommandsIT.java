package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The purge's orphan check against real Redis: real orphans fail, and a command taken meanwhile never does. */
@WithRedis
class OrphanedCommandsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Imei IMEI = new Imei("352093081452251");
    private static final String INSTANCE = "taker-1";
    private static final CommandSettings SETTINGS = new CommandSettings(Duration.ofSeconds(30), Duration.ofHours(1),
            Duration.ofDays(7), 100, 512, Duration.ofSeconds(60), Duration.ofDays(7), 10000, Duration.ofSeconds(10),
            3, Duration.ofSeconds(5), false);

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private StatefulRedisConnection<String, String> takerConnection;
    private StatefulRedisConnection<String, String> purgeConnection;
    private RedisCommands<String, String> redis;
    private RedisCommandStore taker;
    private CommandExpiry expiry;
    private ExecutorService takes;

    @BeforeEach
    void connect(RedisFixture fixture) {
        // Two connections, as an instance taking and another purging have: their calls really interleave.
        takerConnection = fixture.client().connect();
        purgeConnection = fixture.client().connect();
        redis = purgeConnection.sync();
        taker = new RedisCommandStore(takerConnection.async(), keys, () -> INSTANCE, SETTINGS);
        expiry = new CommandExpiry(purgeConnection.async(), keys, SETTINGS, IngestionMetrics.noop(), TIMEOUT);
        takes = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close() {
        takes.shutdownNow();
        takerConnection.close();
        purgeConnection.close();
    }

    @Test
    void failOrphans_failsOnlyTheCommandsNothingWillDeliver() {
        // Queued in no queue, and sent in no in-flight place: orphans.
        command("lost-queued", "queued", null);
        command("lost-sent", "sent", "gone-7");
        // Queued in its queue, and sent in its instance's in-flight place: alive.
        command("waiting", "queued", null);
        redis.rpush(commandKeys.commandQueue(IMEI.value()), "waiting");
        command("in-flight", "sent", "live-2");
        redis.hset(commandKeys.commandsInFlight("live-2"), IMEI.value(), "in-flight:1");
        // Finished (it has its retention TTL): never an orphan.
        command("finished", "replied", null);
        redis.pexpire(commandKeys.command("finished"), 60_000);

        assertThat(expiry.failOrphans(true, 1000)).as("dry run").isEqualTo(2);
        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isZero();
        assertThat(redis.hget(commandKeys.command("lost-queued"), "status")).isEqualTo("queued");

        assertThat(expiry.failOrphans(false, 1000)).isEqualTo(2);

        assertThat(redis.hmget(commandKeys.command("lost-queued"), "status", "reason")).extracting(kv -> kv.getValue())
                .containsExactly("failed", "orphaned");
        assertThat(redis.hget(commandKeys.command("lost-sent"), "reason")).isEqualTo("orphaned");
        assertThat(redis.pttl(commandKeys.command("lost-sent"))).as("kept for the retention").isPositive();
        assertThat(redis.hget(commandKeys.command("waiting"), "status")).isEqualTo("queued");
        assertThat(redis.hget(commandKeys.command("in-flight"), "status")).isEqualTo("sent");
        assertThat(redis.hget(commandKeys.command("finished"), "status")).isEqualTo("replied");
        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isEqualTo(2);
        assertThat(expiry.failOrphans(false, 1000)).as("nothing left").isZero();
    }

    @Test
    void passesBoundedByTheScanLimit_goOnWhereTheLastStopped_soEveryOrphanIsFoundInTheEnd() {
        // Finished commands (retained, never orphans) by the thousand, a few orphans among them.
        int finished = 3000;
        int orphans = 30;
        for (int i = 0; i < finished; i++) {
            command("done-" + i, "replied", null);
            redis.pexpire(commandKeys.command("done-" + i), 600_000);
        }
        for (int i = 0; i < orphans; i++) {
            command("lost-" + i, "queued", null);
        }
        int scanLimit = 500;
        // A walk over all the hashes takes about (finished + orphans) / scanLimit passes; SCAN pages are approximate.
        int passes = 0;
        long failed = 0;
        while (failed < orphans && passes < 3 * (finished + orphans) / scanLimit) {
            failed += expiry.failOrphans(false, scanLimit);
            passes++;
        }

        assertThat(failed).as("orphans failed in %d passes", passes).isEqualTo(orphans);
        for (int i = 0; i < orphans; i++) {
            assertThat(redis.hget(commandKeys.command("lost-" + i), "reason")).isEqualTo("orphaned");
        }
        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isEqualTo(orphans);
    }

    @Test
    void namespaceWithGlobCharacters_itsOrphansAreStillFound() {
        RedisKeys odd = new RedisKeys("fleet[1]*:");
        CommandKeys oddCommandKeys = new CommandKeys(odd);
        CommandExpiry oddExpiry = new CommandExpiry(purgeConnection.async(), odd, SETTINGS, IngestionMetrics.noop(),
                TIMEOUT);
        redis.hset(oddCommandKeys.command("lost-1"), Map.of("id", "lost-1", "imei", IMEI.value(), "codec", "12",
                "command",
                "getinfo", "status", "queued", "history", "[]",
                "expires_at", Long.toString(System.currentTimeMillis() + 3_600_000)));

        assertThat(oddExpiry.failOrphans(false, 1000)).isEqualTo(1);
        assertThat(redis.hget(oddCommandKeys.command("lost-1"), "reason")).isEqualTo("orphaned");
        assertThat(redis.zcard(oddCommandKeys.commandDeadLetters())).isEqualTo(1);
    }

    @Test
    void takeRacingTheOrphanCheck_neverFailsATakenCommand() throws Exception {
        int iterations = 1500;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        int raced = 0;
        for (int i = 0; i < iterations && System.nanoTime() < deadline; i++) {
            String id = "race-" + i;
            await(taker.enqueue(id, IMEI, 12, "getinfo", null, System.currentTimeMillis() + 3_600_000, 3));
            CountDownLatch go = new CountDownLatch(1);
            // Start the take up to about the orphan check's own round trips late, so every interleaving comes up.
            long delayNanos = ThreadLocalRandom.current().nextLong(400_000);
            CompletableFuture<Optional<TakenCommand>> taken = CompletableFuture.supplyAsync(() -> {
                awaitLatch(go);
                long until = System.nanoTime() + delayNanos;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return await(taker.take(IMEI));
            }, takes);
            go.countDown();
            long orphaned = expiry.failOrphans(false, 1000);
            Optional<TakenCommand> command = taken.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            assertThat(command).as("iteration %d: taken", i).isPresent();
            assertThat(orphaned).as("iteration %d: no orphan", i).isZero();
            assertThat(redis.hget(commandKeys.command(id), "status")).as("iteration %d", i).isEqualTo("sent");
            assertThat(redis.zcard(commandKeys.commandDeadLetters())).as("iteration %d: dead letters", i).isZero();
            redis.del(commandKeys.command(id), commandKeys.commandsInFlight(INSTANCE));
            raced++;
        }
        assertThat(raced).as("iterations within the time limit").isGreaterThanOrEqualTo(200);
    }

    /** A command hash of {@code status}, sent by {@code instance} (null: none), with no queue or in-flight entry. */
    private void command(String id, String status, String instance) {
        redis.hset(commandKeys.command(id), Map.of("id", id, "imei", IMEI.value(), "codec", "12", "command", "getinfo",
                "status", status, "attempts", "1", "max_attempts", "3", "history", "[]",
                "expires_at", Long.toString(System.currentTimeMillis() + 3_600_000)));
        if (instance != null) {
            redis.hset(commandKeys.command(id), "instance", instance);
        }
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        return org.fleetpipe.teltonika.redis.Blocking.await(stage, TIMEOUT);
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
