package org.fleetpipe.teltonika.simulator.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.registry.testing.RedisFixture;
import org.fleetpipe.teltonika.registry.testing.WithRedis;
import org.fleetpipe.teltonika.server.cluster.ServerProcess;
import org.fleetpipe.teltonika.simulator.cli.OptionsParser;
import org.fleetpipe.teltonika.simulator.run.RunResult;
import org.fleetpipe.teltonika.simulator.run.Simulation;
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
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            for (String prefix : List.of("k1", "k2", "k3")) {
                replicas.add(ServerProcess.start(Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix,
                        "HEARTBEAT_TTL_MS", Long.toString(TTL_MS), "HEARTBEAT_INTERVAL_MS", "1000",
                        "JANITOR_INTERVAL_MS", Long.toString(JANITOR_MS), "API_TOKEN", "t")));
            }
            List<InetSocketAddress> balancer = replicas.stream()
                    .map(r -> new InetSocketAddress("127.0.0.1", r.tcpPort)).toList();
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            Simulation simulation = new Simulation(OptionsParser.parse("--host", "127.0.0.1", "--port",
                    Integer.toString(replicas.get(0).tcpPort), "--devices", Integer.toString(DEVICES), "--interval",
                    "200ms", "--records", "5", "--codec", "mixed", "--duration", "16s", "--progress", "0s",
                    "--ack-timeout", "3s", "--backoff-min", "100ms", "--backoff-max", "1s", "--drain", "15s"),
                    new PrintStream(output, true, StandardCharsets.UTF_8))
                    .behindBalancer(balancer)
                    .onAcknowledged((imei, records) -> records.forEach(r -> acknowledged.add(imei + ":" + r.timestamp())));
            CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return simulation.run();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });

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

            RunResult result = run.get(60, TimeUnit.SECONDS);
            Set<String> stored = new HashSet<>();
            String from = "-";
            while (true) {
                List<StreamMessage<String, String>> page = commands.xrange("telemetry", Range.create(from, "+"),
                        Limit.from(10_000));
                for (StreamMessage<String, String> m : page) {
                    stored.add(m.getBody().get("imei") + ":" + m.getBody().get("ts"));
                }
                if (page.size() < 10_000) {
                    break;
                }
                from = "(" + page.get(page.size() - 1).getId();
            }
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
