package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandFailures.Failure;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code COMMAND_RETENTION} against real Redis, with a short setting: a finished command's hash
 * (replied or failed by any script) expires after the retention, while a queued or sent one never
 * does, and a failed command's dead letter outlives its hash.
 */
@WithRedis
class CommandRetentionIT {

    private static final Duration RETENTION = Duration.ofMillis(1500);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private CommandFailures commands;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
        commands = new CommandFailures(connection, CommandFailures.settings(10_000, RETENTION));
    }

    @AfterEach
    void close() {
        connection.close();
    }

    @Test
    void repliedCommand_expiresAfterTheRetention_whileQueuedAndSentOnesHaveNoTtl() {
        commands.enqueue("replied");
        commands.enqueue("sent");
        TakenCommand taken = commands.take().orElseThrow();
        assertThat(taken.id()).isEqualTo("replied");
        commands.enqueue("queued");
        assertThat(redis.pttl(commandKeys.command("replied"))).as("sent, awaiting its reply").isEqualTo(-1);

        assertThat(CommandFailures.await(commands.store.finish(taken, CommandFailures.IMEI, true, null, "ok")))
                .isTrue();
        assertThat(redis.pttl(commandKeys.command("replied"))).isBetween(1L, RETENTION.toMillis());
        commands.take().orElseThrow();

        await().atMost(WAIT).until(() -> redis.exists(commandKeys.command("replied")) == 0);
        assertThat(redis.hget(commandKeys.command("sent"), "status")).isEqualTo("sent");
        assertThat(redis.pttl(commandKeys.command("sent"))).isEqualTo(-1);
        assertThat(redis.hget(commandKeys.command("queued"), "status")).isEqualTo("queued");
        assertThat(redis.pttl(commandKeys.command("queued"))).isEqualTo(-1);
    }

    @ParameterizedTest
    @EnumSource(Failure.class)
    void failedCommand_expiresAfterTheRetention_itsDeadLetterStays(Failure failure) {
        commands.fail(failure, "failed-1");

        assertThat(redis.pttl(commandKeys.command("failed-1"))).isBetween(1L, RETENTION.toMillis());
        await().atMost(WAIT).until(() -> redis.exists(commandKeys.command("failed-1")) == 0);
        assertThat(redis.zrange(commandKeys.commandDeadLetters(), 0, -1)).singleElement().asString()
                .contains("\"id\":\"failed-1\"").contains("\"reason\":\"" + failure.reason + "\"");
    }
}
