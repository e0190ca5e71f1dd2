package org.fleetpipe.teltonika.simulator.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.cluster.ServerProcess;
import org.fleetpipe.teltonika.simulator.run.RunResult;
import org.junit.jupiter.api.Test;

/**
 * Three replicas behind a (simulated) load balancer, devices pushing records, one replica killed
 * with SIGKILL: every record any device saw acknowledged must be in the stream, the dead replica's
 * registry entries must go, and its devices must carry on on the survivors.
 */
@WithRedis
class KillUnderLoadIT {

    private static final long TTL_MS = 3000;
    private static final long JANITOR_MS = 1000;
    private static final int DEVICES = 30;

    @Test
    void killingOneOfThreeReplicasUnderLoad_losesNoAcknowledgedRecord(RedisFixture redis) throws Exception {
        List<ServerProcess> replicas = new ArrayList<>();
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            for (String prefix : List.of("k1", "k2", "k3")) {
                replicas.add(ServerProcess.start(Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix,
                        "HEARTBEAT_TTL_MS", Long.toString(TTL_MS), "HEARTBEAT_INTERVAL_MS", "1000",
                        "JANITOR_INTERVAL_MS", Long.toString(JANITOR_MS), "API_TOKEN", "kill-under-load-0123456789abcdef0123456789abcdef")));
            }
            FaultRun run = FaultRun.start(replicas.stream().map(r -> new InetSocketAddress("127.0.0.1", r.tcpPort))
                    .toList(), DEVICES);
            Set<String> acknowledged = run.acknowledged();
            await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() > 500
                    && commands.hlen("connections:registry") == DEVICES);
            String victim = commands.hget("connections:registry",
                    commands.hkeys("connections:registry").stream().filter(k -> commands.hget("connections:registry", k)
                            .startsWith("k1-")).findFirst().orElseThrow());
            long victimDevices = commands.hvals("connections:registry").stream().filter(victim::equals).count();
            replicas.get(0).kill();
            assertThat(replicas.get(0).process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            long killedAt = System.nanoTime();

            await().atMost(Duration.ofMillis(TTL_MS + JANITOR_MS + 5000)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !commands.hvals("connections:registry").contains(victim));
            long evictedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> commands.hlen("connections:registry") == DEVICES);
            long reconnectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);

            // The survivors go on taking the whole fleet's records for a while before the load ends.
            RunResult result = run.finishAfter(2000);
            Set<String> stored = FaultRun.stored(commands);
            Set<String> lost = new HashSet<>(acknowledged);
            lost.removeAll(stored);
            System.out.printf("kill under load: %d records acknowledged, %d distinct in the stream (%d entries), "
                            + "%d acknowledged but missing; %d devices of %s evicted %d ms after SIGKILL; all %d "
                            + "devices registered again after %d ms%n", acknowledged.size(), stored.size(),
                    commands.xlen("telemetry"), lost.size(), victimDevices, victim, evictedMs, DEVICES, reconnectedMs);
            assertThat(lost).as("acknowledged records missing from the stream").isEmpty();
            assertThat(result.stats().recordsAcknowledged()).isPositive();
            assertThat(commands.hvals("connections:registry")).noneMatch(owner -> owner.startsWith("k1-"));
        } finally {
            for (ServerProcess r : replicas) {
                r.close();
            }
        }
    }
}
