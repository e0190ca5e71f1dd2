package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A live instance's own in-flight commands held against the registry in its command sweep: what no
 * send of its own will end goes back to its queue (or fails as {@code attempts}), what is really in
 * flight is left alone, and a finish racing the check wins or loses whole.
 */
@WithRedis
class InFlightCheckIT {

    private static final String ME = "me-1";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    /** As production: the reply timeout and a margin for the finish. */
    private static final Duration LIMIT = REPLY_TIMEOUT.plusSeconds(10);
    private static final int PAGE = 100;

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private RedisFixture fixture;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private SimpleMeterRegistry meters;
    private PeriodicJobs jobs;
    private RedisCommandStore store;
    private InFlightCheck check;
    private CommandSweep sweep;

    @BeforeEach
    void connect(RedisFixture fixture) {
        this.fixture = fixture;
        connection = fixture.client().connect();
        redis = connection.sync();
        meters = new SimpleMeterRegistry();
        jobs = new PeriodicJobs("in-flight-check-test", 1);
        CommandSettings settings = new CommandSettings(REPLY_TIMEOUT, Duration.ofHours(1), Duration.ofDays(7), 100,
                512, Duration.ofSeconds(60), Duration.ofDays(1), 1000, Duration.ofSeconds(10), 3, Duration.ofSeconds(5), false);
        IngestionMetrics metrics = new IngestionMetrics(meters);
        store = new RedisCommandStore(connection.async(), keys, () -> ME, settings);
        check = new InFlightCheck(connection.async(), keys, () -> ME,
                new CommandHandBack(connection.async(), keys, 1000, Duration.ofDays(1)), metrics, LIMIT, PAGE, TIMEOUT);
        sweep = new CommandSweep(new CommandExpiry(connection.async(), keys, settings, metrics, TIMEOUT), check,
                imei -> { }, settings, TIMEOUT, jobs);
    }

    @AfterEach
    void close() {
        jobs.close();
        connection.close();
    }

    private static String imei(int i) {
        return String.format("35209308%07d", i);
    }

    /** Queues a command for {@code imei} and has this instance take it (sent now, as the dispatcher's take). */
    private TakenCommand sent(String id, String imei, int maxAttempts) {
        long enqueued = await(store.enqueue(id, new Imei(imei), 12, "getinfo", "",
                System.currentTimeMillis() + 3_600_000, maxAttempts));
        assertThat(enqueued).isEqualTo(1);
        return await(store.take(new Imei(imei))).orElseThrow();
    }

    /** The command was sent this long ago. */
    private void sentAgo(String id, Duration ago) {
        redis.hset(commandKeys.command(id), "sent_at", Long.toString(System.currentTimeMillis() - ago.toMillis()));
    }

    private double counted(String outcome) {
        var counter = meters.find("teltonika.commands").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        return Blocking.await(stage, TIMEOUT);
    }

    @Test
    void sentCommandWhoseFinishNeverCame_deviceNotHereAnyMore_isHandedBackWithinASweep_andSentAgain() {
        String imei = imei(1);
        sent("c1", imei, 3);
        // The device moved on without this instance's finish reaching Redis: nothing here will end the send.
        sentAgo("c1", LIMIT.plusSeconds(1));

        sweep.sweep();

        assertThat(redis.hget(commandKeys.commandsInFlight(ME), imei)).isNull();
        assertThat(redis.hget(commandKeys.command("c1"), "status")).isEqualTo("queued");
        assertThat(redis.hget(commandKeys.command("c1"), "history")).endsWith("\"reason\":\"left in flight\"}]")
                .contains("\"status\":\"queued\"");
        assertThat(redis.lrange(commandKeys.commandQueue(imei), 0, -1)).containsExactly("c1");
        assertThat(counted("handed-back")).isEqualTo(1);
        TakenCommand again = await(store.take(new Imei(imei))).orElseThrow();
        assertThat(again.id()).isEqualTo("c1");
        assertThat(again.attempt()).as("sent again, the attempt counted").isEqualTo(2);
    }

    @Test
    void sentCommandWhoseDeviceIsRegisteredToAnotherInstance_isHandedBackAtOnce_andThatInstanceIsWoken()
            throws Exception {
        String imei = imei(2);
        sent("c2", imei, 3);
        redis.hset(keys.registry(), imei, "other-2");
        var subscriber = fixture.client().connectPubSub();
        CompletableFuture<String> message = new CompletableFuture<>();
        subscriber.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String text) {
                message.complete(text);
            }
        });
        subscriber.sync().subscribe(keys.instanceEvents("other-2"));

        sweep.sweep();

        assertThat(redis.hget(commandKeys.command("c2"), "status")).isEqualTo("queued");
        assertThat(redis.lrange(commandKeys.commandQueue(imei), 0, -1)).containsExactly("c2");
        assertThat(message.get(10, TimeUnit.SECONDS)).endsWith(" " + imei);
        subscriber.close();
    }

    @Test
    void commandLegitimatelyInFlight_deviceConnectedHere_withinTheTimeout_isLeftAlone() {
        String imei = imei(3);
        TakenCommand command = sent("c3", imei, 3);
        redis.hset(keys.registry(), imei, ME);
        // Even well past the reply timeout itself: the margin is the finish's.
        sentAgo("c3", REPLY_TIMEOUT.plusSeconds(1));

        sweep.sweep();

        assertThat(redis.hget(commandKeys.commandsInFlight(ME), imei)).isEqualTo(command.token());
        assertThat(redis.hget(commandKeys.command("c3"), "status")).isEqualTo("sent");
        assertThat(redis.exists(commandKeys.commandQueue(imei))).isZero();
        assertThat(counted("handed-back")).isZero();
        assertThat(await(store.finish(command, new Imei(imei), true, null, "ok"))).isTrue();
    }

    @Test
    void leftBehindCommandSentAsOftenAsItMay_failsAsAttempts_intoTheDeadLetters() {
        String imei = imei(4);
        sent("c4", imei, 1);
        sentAgo("c4", LIMIT.plusSeconds(1));

        sweep.sweep();

        assertThat(redis.hget(commandKeys.command("c4"), "status")).isEqualTo("failed");
        assertThat(redis.hget(commandKeys.command("c4"), "reason")).isEqualTo("attempts");
        assertThat(redis.zrange(commandKeys.commandDeadLetters(), 0, -1)).singleElement().asString()
                .contains("\"id\":\"c4\"");
        assertThat(redis.exists(commandKeys.commandQueue(imei))).isZero();
        assertThat(counted("attempts")).isEqualTo(1);
    }

    @Test
    void onePassLooksAtOnePage_andTheNextPassesGoOn() {
        // More than a small hash's compact encoding holds (512), which HSCAN would return whole.
        int inFlight = 1000;
        for (int i = 0; i < inFlight; i++) {
            sent("p" + i, imei(100 + i), 3);
            sentAgo("p" + i, LIMIT.plusSeconds(1));
        }

        CommandHandBack.Outcome first = check.checkPage();

        assertThat(first.handedBack()).isPositive().isLessThan(inFlight);
        long handed = first.handedBack();
        for (int pass = 0; pass < 100 && redis.hlen(commandKeys.commandsInFlight(ME)) > 0; pass++) {
            handed += check.checkPage().handedBack();
        }
        assertThat(handed).isEqualTo(inFlight);
        assertThat(redis.exists(commandKeys.commandsInFlight(ME))).isZero();
    }

    @Test
    void finishRacingTheCheck_eachCommandIsEitherRepliedOrHandedBack_neverBoth() throws Exception {
        int inFlight = 1000;
        List<TakenCommand> commands = new ArrayList<>();
        for (int i = 0; i < inFlight; i++) {
            commands.add(sent("r" + i, imei(2000 + i), 3));
            // Left behind as far as the check can tell; the finish still comes (a slow Redis answered late).
            sentAgo("r" + i, LIMIT.plusSeconds(1));
        }
        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<Long> handedBack = CompletableFuture.supplyAsync(() -> {
            awaitQuietly(go);
            long handed = 0;
            for (int pass = 0; pass < 200 && redis.hlen(commandKeys.commandsInFlight(ME)) > 0; pass++) {
                handed += check.checkPage().handedBack();
            }
            return handed;
        });
        List<CompletableFuture<Boolean>> finishes = new ArrayList<>();
        go.countDown();
        for (int i = 0; i < inFlight; i++) {
            finishes.add(store.finish(commands.get(i), new Imei(imei(2000 + i)), true, null, "ok")
                    .toCompletableFuture());
        }

        long handed = handedBack.get(60, TimeUnit.SECONDS);
        long replied = 0;
        for (int i = 0; i < inFlight; i++) {
            boolean finished = finishes.get(i).get(10, TimeUnit.SECONDS);
            String status = redis.hget(commandKeys.command("r" + i), "status");
            List<String> queue = redis.lrange(commandKeys.commandQueue(imei(2000 + i)), 0, -1);
            if (finished) {
                replied++;
                assertThat(status).as("r%d", i).isEqualTo("replied");
                assertThat(queue).as("r%d", i).isEmpty();
            } else {
                assertThat(status).as("r%d", i).isEqualTo("queued");
                assertThat(queue).as("r%d", i).containsExactly("r" + i);
            }
        }
        assertThat(replied + handed).isEqualTo(inFlight);
        assertThat(redis.exists(commandKeys.commandsInFlight(ME))).isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
