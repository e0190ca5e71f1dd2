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
 * Redis cut off for 10 s under load (frozen with SIGSTOP: it keeps its data, like a partition):
 * nothing is acknowledged that was not stored, the replicas go unready and ready again by
 * themselves, and afterwards every acknowledged record is in the stream.
 */
@WithRedis
class RedisOutageUnderLoadIT {

    @Test
    void redisGoneForTenSecondsUnderLoad_losesNoAcknowledgedRecord(RedisFixture redis) throws Exception {
        List<ServerProcess> replicas = new ArrayList<>();
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            for (String prefix : List.of("o1", "o2")) {
                replicas.add(ServerProcess.start(Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix,
                        "HEARTBEAT_TTL_MS", "3000", "HEARTBEAT_INTERVAL_MS", "1000", "JANITOR_INTERVAL_MS", "1000",
                        "REDIS_COMMAND_TIMEOUT", "1s", "API_TOKEN", "redis-outage-0123456789abcdef0123456789abcdef")));
            }
            FaultRun run = FaultRun.start(replicas.stream().map(r -> new InetSocketAddress("127.0.0.1", r.tcpPort))
                    .toList(), 20);
            await().atMost(Duration.ofSeconds(30)).until(() -> run.acknowledged().size() > 500);
            int before = run.acknowledged().size();

            redis.freeze();
            long frozenAt = System.nanoTime();
            await().atMost(Duration.ofSeconds(15)).until(() -> replicas.stream()
                    .allMatch(r -> FaultRun.readiness(r.httpPort) == 503));
            long unreadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
            // The outage itself is the scenario: 10 s without Redis.
            TimeUnit.MILLISECONDS.sleep(Math.max(0, 10_000 - unreadyMs));
            int duringOutage = run.acknowledged().size() - before;
            redis.thaw();
            long thawedAt = System.nanoTime();

            await().atMost(Duration.ofSeconds(30)).until(() -> replicas.stream()
                    .allMatch(r -> FaultRun.readiness(r.httpPort) == 200));
            long readyAgainMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - thawedAt);
            RunResult result = run.finishAfter(3000);

            Set<String> stored = FaultRun.stored(commands);
            Set<String> lost = new HashSet<>(run.acknowledged());
            lost.removeAll(stored);
            System.out.printf("redis outage under load: %d records acknowledged (%d while Redis was frozen, "
                            + "those written just before it), %d distinct in the stream, %d acknowledged but missing; "
                            + "unready after %d ms, ready again %d ms after Redis came back; %d records still "
                            + "unacknowledged at the end%n", run.acknowledged().size(), duringOutage, stored.size(),
                    lost.size(), unreadyMs, readyAgainMs, result.stats().recordsUnacknowledged());
            assertThat(lost).as("acknowledged records missing from the stream").isEmpty();
            assertThat(result.stats().recordsUnacknowledged()).as("devices delivered everything after recovery")
                    .isZero();
        } finally {
            for (ServerProcess r : replicas) {
                r.close();
            }
        }
    }
}
