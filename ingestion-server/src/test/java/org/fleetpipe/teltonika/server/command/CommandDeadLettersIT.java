package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandFailures.Failure;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.ops.PurgeMode;
import org.fleetpipe.teltonika.server.ops.PurgeReport;
import org.fleetpipe.teltonika.server.ops.Purger;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code dlq:commands} against real Redis: every script that fails a command keeps the set at
 * {@code DLQ_COMMANDS_MAX_ENTRIES}, dropping the oldest, and the purge removes entries older than
 * {@code DLQ_TTL} (a dry run only counts them).
 */
@WithRedis
class CommandDeadLettersIT {

    private static final int CAP = 3;
    private static final Duration DLQ_TTL = Duration.ofDays(7);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private CommandFailures commands;
    private PeriodicJobs jobs;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
        commands = new CommandFailures(connection, CommandFailures.settings(CAP, Duration.ofDays(7)));
        jobs = new PeriodicJobs("dlq-test", 1);
    }

    @AfterEach
    void close() {
        jobs.close();
        connection.close();
    }

    @ParameterizedTest
    @EnumSource(Failure.class)
    void everyFailurePath_keepsTheCap_droppingTheOldestEntry(Failure failure) throws Exception {
        for (int i = 1; i <= CAP; i++) {
            redis.zadd(commandKeys.commandDeadLetters(), i, "{\"id\":\"old-" + i + "\"}");
        }

        commands.fail(failure, "new-1");

        List<ScoredValue<String>> letters = redis.zrangeWithScores(commandKeys.commandDeadLetters(), 0, -1);
        assertThat(letters).hasSize(CAP);
        assertThat(letters.subList(0, CAP - 1)).extracting(ScoredValue::getValue)
                .as("the oldest (score 1) dropped").containsExactly("{\"id\":\"old-2\"}", "{\"id\":\"old-3\"}");
        var entry = JSON.readTree(letters.get(CAP - 1).getValue());
        assertThat(entry.get("id").asText()).isEqualTo("new-1");
        assertThat(entry.get("reason").asText()).isEqualTo(failure.reason);
        assertThat(entry.get("imei").asText()).isEqualTo(CommandFailures.IMEI.value());
        assertThat(letters.get(CAP - 1).getScore()).as("scored by the time it failed")
                .isGreaterThan(System.currentTimeMillis() - 60_000.0);
    }

    @Test
    void manyFailures_theSetHoldsExactlyTheNewestCap_inTheOrderTheyFailed() {
        for (int i = 0; i < 7; i++) {
            nextMillisecond();
            commands.fail(Failure.REPLY_TIMEOUT, "c" + i);
        }

        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isEqualTo(CAP);
        assertThat(redis.zrange(commandKeys.commandDeadLetters(), 0, -1)).extracting(CommandDeadLettersIT::id)
                .containsExactly("c4", "c5", "c6");
        assertThat(redis.hget(commandKeys.command("c0"), "reason")).as("its hash still says why, for its retention")
                .isEqualTo("timeout");
    }

    @Test
    void purge_removesCommandDeadLettersOlderThanTheTtl_exactly_andADryRunOnlyCountsThem() {
        long now = System.currentTimeMillis();
        long ttl = DLQ_TTL.toMillis();
        redis.zadd(commandKeys.commandDeadLetters(), now - ttl - 3_600_000, "{\"id\":\"week-and-an-hour\"}");
        redis.zadd(commandKeys.commandDeadLetters(), now - ttl - 60_000, "{\"id\":\"week-and-a-minute\"}");
        redis.zadd(commandKeys.commandDeadLetters(), now - ttl + 60_000, "{\"id\":\"a-minute-short-of-a-week\"}");
        redis.zadd(commandKeys.commandDeadLetters(), now, "{\"id\":\"fresh\"}");
        Purger purger = new Purger(connection.async(), keys, ops(), commands.expiry, IngestionMetrics.noop(),
                CommandFailures.TIMEOUT, jobs);

        PurgeReport dry = purger.purge(true);

        assertThat(dry.commandDeadLetters()).isEqualTo(2);
        assertThat(redis.zcard(commandKeys.commandDeadLetters())).isEqualTo(4);

        PurgeReport live = purger.purge(false);

        assertThat(live.commandDeadLetters()).isEqualTo(2);
        assertThat(redis.zrange(commandKeys.commandDeadLetters(), 0, -1)).extracting(CommandDeadLettersIT::id)
                .containsExactly("a-minute-short-of-a-week", "fresh");
        assertThat(purger.purge(false).commandDeadLetters()).as("nothing left past the TTL").isZero();
    }

    private static OpsSettings ops() {
        return new OpsSettings(true, DLQ_TTL, PurgeMode.LIVE, Duration.ofMinutes(5), 10000);
    }

    /** Dead letters of one failure per millisecond, so "oldest" is decided by the score alone. */
    private static void nextMillisecond() {
        long now = System.currentTimeMillis();
        while (System.currentTimeMillis() == now) {
            Thread.onSpinWait();
        }
    }

    private static String id(String letter) {
        try {
            return JSON.readTree(letter).get("id").asText();
        } catch (Exception e) {
            throw new AssertionError(letter, e);
        }
    }
}
