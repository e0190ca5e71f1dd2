package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.fleetpipe.teltonika.janitor.RegistryJanitor;
import org.fleetpipe.teltonika.janitor.SweepResult;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The janitor with the command hand-back as its hook: what a dead instance sent and got no reply for. */
@WithRedis
class DeadInstanceCommandsIT {

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private SimpleMeterRegistry meters;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
        meters = new SimpleMeterRegistry();
    }

    @AfterEach
    void close() {
        connection.close();
    }

    private RegistryJanitor janitor(boolean dryRun, int scanCount) {
        return DeadInstanceFixture.janitor(connection, meters, dryRun, scanCount);
    }

    private static String imei(int i) {
        return DeadInstanceFixture.imei(i);
    }

    @Test
    void deadInstancesCommands_goBackToTheirQueuesInBoundedPages_andUsedUpOnesFailWithAttempts() throws Exception {
        // More than a small hash's compact encoding holds (hash-max-ziplist-entries, 512), which HSCAN returns whole.
        int inFlight = 600;
        for (int i = 0; i < inFlight; i++) {
            // The last one was sent as often as it may be.
            sentCommand("dead-5", imei(i), "c" + i, i == inFlight - 1 ? 3 : 1, 3);
        }
        redis.hset("instance:heartbeat:live-1", "host", "h");
        sentCommand("live-1", imei(900), "live-c", 1, 3);
        redis.configResetstat();

        SweepResult result = janitor(false, 50).sweepOnce();

        assertThat(result.leftoversHandedBack()).isEqualTo(inFlight - 1);
        assertThat(result.leftoversFailed()).isEqualTo(1);
        assertThat(scriptCalls()).as("one call per page of about 50 entries, not one over the whole hash")
                .isGreaterThanOrEqualTo(inFlight / 50);
        assertThat(redis.exists("commands:inflight:dead-5")).isZero();
        assertThat(redis.smembers("commands:inflight-instances")).containsExactly("live-1");
        assertThat(redis.lrange("commands:queue:" + imei(0), 0, -1)).containsExactly("c0");
        assertThat(redis.hget("command:c0", "status")).isEqualTo("queued");
        assertThat(redis.exists("commands:queue:" + imei(inFlight - 1))).isZero();
        assertThat(redis.hget("command:c" + (inFlight - 1), "status")).isEqualTo("failed");
        assertThat(redis.hget("command:c" + (inFlight - 1), "reason")).isEqualTo("attempts");
        assertThat(redis.zrange("dlq:commands", 0, -1)).singleElement().asString().contains("\"reason\":\"attempts\"")
                .contains("\"id\":\"c" + (inFlight - 1) + "\"");
        assertThat(redis.hget("commands:inflight:live-1", imei(900))).as("a live instance's are left alone")
                .isEqualTo("live-c:1");
        assertThat(meters.get("teltonika.commands").tag("outcome", "attempts").counter().count())
                .as("the janitor's failures count like the instance's own").isEqualTo(1.0);
    }

    @Test
    void dryRun_handsNothingBack_failsNothing_andSaysWhatItPaused() {
        sentCommand("dead-5", imei(1), "c1", 1, 3);
        sentCommand("dead-5", imei(2), "c2", 3, 3);
        redis.zadd("instance:ids", 1, "dead-5");

        SweepResult result = janitor(true, 50).sweepOnce();

        assertThat(result.leftoversHandedBack()).isZero();
        assertThat(result.leftoversFailed()).isZero();
        assertThat(result.leftoversSummary()).isEqualTo("paused=eviction,command-hand-back,id-cleanup");
        assertThat(redis.hget("commands:inflight:dead-5", imei(1))).isEqualTo("c1:1");
        assertThat(redis.hget("command:c2", "status")).isEqualTo("sent");
        assertThat(redis.zcard("dlq:commands")).isZero();
        assertThat(redis.zscore("instance:ids", "dead-5")).as("the id cleanup is paused too").isNotNull();
        assertThat(meters.get("teltonika.commands").tag("outcome", "attempts").counter().count()).isZero();

        SweepResult live = janitor(false, 50).sweepOnce();

        assertThat(live.leftoversSummary()).isEqualTo("commands-handed-back=1 commands-failed-attempts=1");
        assertThat(redis.hget("command:c2", "reason")).isEqualTo("attempts");
        assertThat(meters.get("teltonika.commands").tag("outcome", "attempts").counter().count()).isEqualTo(1.0);
        assertThat(redis.zscore("instance:ids", "dead-5")).isNull();
    }

    private void sentCommand(String instance, String imei, String id, int attempts, int maxAttempts) {
        DeadInstanceFixture.sentCommand(redis, instance, imei, id, attempts, maxAttempts);
    }

    /** Script calls since the last CONFIG RESETSTAT, as Redis counts them (a NOSCRIPT answer counts too). */
    private long scriptCalls() {
        long calls = 0;
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += Long.parseLong(line.replaceAll("^[a-z_]+:calls=(\\d+),.*", "$1"));
            }
        }
        return calls;
    }
}
