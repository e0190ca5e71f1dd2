package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.junit.jupiter.api.Test;

/** Two server processes on one Redis, as two replicas behind a load balancer. */
@WithRedis
class ClusterProcessIT {

    private static final String IMEI = "352093081452251";

    private static Map<String, String> env(RedisFixture redis, String prefix) {
        return Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix, "HEARTBEAT_TTL_MS", "3000",
                "HEARTBEAT_INTERVAL_MS", "1000", "API_TOKEN", "test-token-0123456789abcdef0123456789abcdef");
    }

    @Test
    void deviceMovesToTheOtherProcess_thenThatProcessIsStoppedRemotely_andExitsZero(RedisFixture redis)
            throws Exception {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect();
             ServerProcess p1 = ServerProcess.start(env(redis, "p1"));
             ServerProcess p2 = ServerProcess.start(env(redis, "p2"))) {
            RedisCommands<String, String> commands = connection.sync();
            String p1Id = commands.hget("connections:registry", IMEI);
            assertThat(p1Id).isNull();

            DeviceClient onP1 = DeviceClient.connect(p1.tcpPort);
            assertThat(onP1.login(IMEI)).isEqualTo(1);
            String first = commands.hget("connections:registry", IMEI);
            assertThat(first).startsWith("p1-");

            DeviceClient onP2 = DeviceClient.connect(p2.tcpPort);
            assertThat(onP2.login(IMEI)).isEqualTo(1);
            String second = commands.hget("connections:registry", IMEI);
            assertThat(second).startsWith("p2-");
            await().atMost(Duration.ofSeconds(10)).until(onP1::closedByServer);
            assertThat(onP2.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
            onP1.close();

            // The documented command; it stays until the instance's clean stop removes it (or its TTL).
            commands.set("instance:shutdown:" + second, "test", io.lettuce.core.SetArgs.Builder.ex(3600));

            assertThat(p2.process().waitFor(20, TimeUnit.SECONDS)).as("p2 stops by itself: %s", p2.output()).isTrue();
            assertThat(p2.process().exitValue()).isZero();
            assertThat(p2.logContains("remote shutdown")).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(onP2::closedByServer);
            onP2.close();
            assertThat(commands.hget("connections:registry", IMEI)).isNull();
            assertThat(commands.zscore("instance:ids", second)).isNull();
            assertThat(p1.process().isAlive()).isTrue();
            assertThat(commands.exists("instance:heartbeat:" + first)).isEqualTo(1);
            assertThat(commands.exists("instance:shutdown:" + second)).as("removed by the clean stop").isZero();
        }
    }
}
