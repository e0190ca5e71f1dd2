package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/** Ends commands of one device through the real store and expiry, one way per script that ends them. */
final class CommandFailures {

    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final Imei IMEI = new Imei("352093081452251");
    static final String INSTANCE = "failing-1";

    /** Each script that fails a command into dlq:commands, with the reason it gives. */
    enum Failure {
        /** finish.lua: no reply before the reply timeout. */
        REPLY_TIMEOUT("timeout"),
        /** take.lua: the TTL passed while it waited in the queue. */
        EXPIRED_AT_TAKE("expired"),
        /** take.lua: a leftover of this instance handed back, already sent as often as it may be. */
        ATTEMPTS_AT_TAKE("attempts"),
        /** requeue-commands.lua: the connection ended before the reply, the last send allowed. */
        ATTEMPTS_AT_HAND_BACK("attempts"),
        /** expire-queued.lua: the command sweep, the device offline past the TTL. */
        EXPIRED_BY_SWEEP("expired"),
        /** fail-orphan.lua: the purge, a queued hash in no queue. */
        ORPHANED("orphaned");

        final String reason;

        Failure(String reason) {
            this.reason = reason;
        }
    }

    final RedisKeys keys = new RedisKeys("");
    final CommandKeys commandKeys = new CommandKeys(keys);
    final RedisCommandStore store;
    final CommandExpiry expiry;
    private final RedisCommands<String, String> redis;

    /** {@code settings}' cap and retention are what the scripts apply. */
    CommandFailures(StatefulRedisConnection<String, String> connection, CommandSettings settings) {
        this.redis = connection.sync();
        this.store = new RedisCommandStore(connection.async(), keys, () -> INSTANCE, settings);
        this.expiry = new CommandExpiry(connection.async(), keys, settings, IngestionMetrics.noop(), TIMEOUT);
    }

    /** Settings at reference.conf's defaults but for the dead letters kept and the retention. */
    static CommandSettings settings(int deadLettersKept, Duration retention) {
        return new CommandSettings(Duration.ofSeconds(30), Duration.ofHours(1), Duration.ofDays(7), 100, 512,
                Duration.ofSeconds(60), retention, deadLettersKept, Duration.ofSeconds(10), 3, Duration.ofSeconds(5),
                false);
    }

    /** Fails command {@code id} the way {@code failure} says. */
    void fail(Failure failure, String id) {
        long inAnHour = System.currentTimeMillis() + 3_600_000;
        switch (failure) {
            case REPLY_TIMEOUT -> {
                enqueue(id, inAnHour, 3);
                assertThat(await(store.finish(take().orElseThrow(), IMEI, false, "timeout", null))).isTrue();
            }
            case EXPIRED_AT_TAKE -> {
                enqueue(id, System.currentTimeMillis() - 1, 3);
                assertThat(take()).isEmpty();
            }
            case ATTEMPTS_AT_TAKE -> {
                enqueue(id, inAnHour, 1);
                take().orElseThrow();
                // The instance lost track of it (its finish never reached Redis): the next take hands it back first.
                assertThat(take()).isEmpty();
            }
            case ATTEMPTS_AT_HAND_BACK -> {
                enqueue(id, inAnHour, 1);
                assertThat(await(store.requeue(IMEI, take().orElseThrow())).failed()).isEqualTo(1);
            }
            case EXPIRED_BY_SWEEP -> {
                enqueue(id, System.currentTimeMillis() - 1, 3);
                assertThat(expiry.expireQueued(IMEI.value(), false)).isEqualTo(1);
            }
            case ORPHANED -> {
                enqueue(id, inAnHour, 3);
                redis.del(commandKeys.commandQueue(IMEI.value()));
                assertThat(expiry.failOrphans(false, 1000)).isEqualTo(1);
            }
            default -> throw new IllegalArgumentException(failure.toString());
        }
        assertThat(redis.hget(commandKeys.command(id), "reason")).as("%s failed", id).isEqualTo(failure.reason);
    }

    /** Command {@code id}, queued for an hour. */
    void enqueue(String id) {
        enqueue(id, System.currentTimeMillis() + 3_600_000, 3);
    }

    void enqueue(String id, long expiresAt, int maxAttempts) {
        assertThat(await(store.enqueue(id, IMEI, 12, "getinfo", "", expiresAt, maxAttempts))).isPositive();
    }

    Optional<TakenCommand> take() {
        return await(store.take(IMEI));
    }

    static <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, TIMEOUT);
    }
}
