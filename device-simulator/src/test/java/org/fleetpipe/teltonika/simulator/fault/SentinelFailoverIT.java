package org.fleetpipe.teltonika.simulator.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.fleetpipe.teltonika.server.cluster.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis primary, a replica and three sentinels; two server replicas following the primary
 * through Sentinel; devices pushing records; SIGKILL of the primary. With ACK_REPLICAS=1 no
 * acknowledged record may be missing from the new primary's stream; with 0 the test reports how
 * many were lost, to show what the setting buys.
 */
class SentinelFailoverIT {

    @TempDir
    Path dir;

    @Test
    void ackReplicas1_primaryKilled_noAcknowledgedRecordLost() throws Exception {
        Outcome outcome = failover(1);
        System.out.printf("sentinel failover, ACK_REPLICAS=1: %d acknowledged (%d while the replica lagged), %d lost; "
                + "failover took %d ms%n", outcome.acknowledged, outcome.acknowledgedWhileBehind, outcome.lost,
                outcome.failoverMs);
        assertThat(outcome.lost).isZero();
    }

    @Test
    void ackReplicas0_primaryKilled_reportsWhatWasLost() throws Exception {
        Outcome outcome = failover(0);
        System.out.printf("sentinel failover, ACK_REPLICAS=0: %d acknowledged (%d while the replica lagged), %d lost; "
                + "failover took %d ms%n", outcome.acknowledged, outcome.acknowledgedWhileBehind, outcome.lost,
                outcome.failoverMs);
        assertThat(outcome.acknowledged).isPositive();
    }

    private static void awaitEverySentinelNames(List<Integer> sentinelPorts, int primaryPort) {
        for (int port : sentinelPorts) {
            RedisClient sentinelClient = RedisClient.create("redis://127.0.0.1:" + port);
            try (var sentinel = sentinelClient.connectSentinel()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> ((InetSocketAddress) sentinel.sync()
                        .getMasterAddrByName("mymaster")).getPort() == primaryPort);
            } finally {
                sentinelClient.shutdown();
            }
        }
    }

    private Path sentinelLog(int ackReplicas, int i) {
        return dir.resolve("sentinel-" + ackReplicas + "-" + i + ".log");
    }

    private record Outcome(int acknowledged, int lost, long failoverMs, int acknowledgedWhileBehind) {
    }

    private Outcome failover(int ackReplicas) throws Exception {
        List<AutoCloseable> open = new ArrayList<>();
        try {
            LocalRedisServer primary = LocalRedisServer.builder().build().start();
            open.add(primary);
            System.out.println("sentinel failover: " + primary.binary().description());
            LocalRedisServer replica = LocalRedisServer.builder()
                    .args("--replicaof", "127.0.0.1", Integer.toString(primary.port())).build().start();
            open.add(replica);
            // Attached before the sentinels start, so that their first INFO of the primary names the replica.
            RedisClient client = RedisClient.create("redis://127.0.0.1:" + primary.port());
            try (StatefulRedisConnection<String, String> direct = client.connect()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> direct.sync().info("replication")
                        .contains("state=online"));
            }
            List<Integer> sentinelPorts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int port = ServerProcess.freePort();
                Path config = dir.resolve("sentinel-" + ackReplicas + "-" + i + ".conf");
                Files.writeString(config, "sentinel monitor mymaster 127.0.0.1 " + primary.port() + " 2\n"
                        + "sentinel down-after-milliseconds mymaster 1000\n"
                        + "sentinel failover-timeout mymaster 3000\n"
                        + "sentinel parallel-syncs mymaster 1\n");
                LocalRedisServer sentinel = LocalRedisServer.builder().port(port).configFile(config)
                        .args("--sentinel", "--logfile", sentinelLog(ackReplicas, i).toString()).build().start();
                open.add(sentinel);
                sentinelPorts.add(port);
            }
            String url = "redis-sentinel://" + String.join(",", sentinelPorts.stream()
                    .map(p -> "127.0.0.1:" + p).toList()) + "/0#mymaster";
            // A sentinel learns of replicas from the primary's INFO, every 10 s: one that has not yet
            // seen the replica when the primary dies has nobody to promote.
            for (int port : sentinelPorts) {
                RedisClient sentinelClient = RedisClient.create("redis://127.0.0.1:" + port);
                try (var sentinel = sentinelClient.connectSentinel()) {
                    await().atMost(Duration.ofSeconds(30)).until(() -> sentinel.sync().replicas("mymaster").stream()
                            .anyMatch(r -> Integer.toString(replica.port()).equals(r.get("port"))));
                } finally {
                    sentinelClient.shutdown();
                }
            }
            WireRecorder wire = new WireRecorder();
            open.add(new RoleWatch(Map.of(primary.port(), "old primary", replica.port(), "replica"), wire::mark));
            List<ServerProcess> servers = new ArrayList<>();
            for (String prefix : List.of("s1", "s2")) {
                ServerProcess server = ServerProcess.start(Map.of("REDIS_URL", url, "INSTANCE_ID", prefix,
                        "ACK_REPLICAS", Integer.toString(ackReplicas), "HEARTBEAT_TTL_MS", "6000",
                        "HEARTBEAT_INTERVAL_MS", "2000", "REDIS_COMMAND_TIMEOUT", "2s", "API_TOKEN", "sentinel-failover-0123456789abcdef0123456789abcdef"));
                servers.add(server);
                open.add(server);
            }
            FaultRun run = FaultRun.start(servers.stream().map(s -> new InetSocketAddress("127.0.0.1", s.tcpPort))
                    .toList(), 16, wire);
            wire.mark("devices started");
            await().atMost(Duration.ofSeconds(30)).until(() -> run.acknowledged().size() > 1000);

            // The replica falls behind (frozen 2 s, as over a slow link) right before the primary dies:
            // whatever the primary acknowledged meanwhile exists nowhere else.
            int beforeFreeze = run.acknowledged().size();
            replica.pause();
            wire.mark("replica paused");
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
            int acknowledgedWhileBehind = run.acknowledged().size() - beforeFreeze;
            primary.kill();
            wire.mark("primary killed");
            replica.resume();
            wire.mark("replica resumed");
            long killedAt = System.nanoTime();
            RedisClient sentinelClient = RedisClient.create("redis://127.0.0.1:" + sentinelPorts.get(0));
            int newPrimaryPort;
            try (var sentinel = sentinelClient.connectSentinel()) {
                // A failed election is retried after 2 x failover-timeout, and a sentinel whose timer
                // stalled (a loaded machine) sits 30 s in TILT mode: hence the generous limit.
                try {
                    await().atMost(Duration.ofSeconds(90)).until(() -> ((InetSocketAddress) sentinel.sync()
                            .getMasterAddrByName("mymaster")).getPort() == replica.port());
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    for (int i = 0; i < 3; i++) {
                        System.out.println("--- sentinel " + i + " log:\n" + Files.readString(sentinelLog(ackReplicas, i)));
                    }
                    throw e;
                }
                newPrimaryPort = ((InetSocketAddress) sentinel.sync().getMasterAddrByName("mymaster")).getPort();
            } finally {
                sentinelClient.shutdown();
            }
            long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            wire.mark("failover seen by sentinel 0 (new primary " + newPrimaryPort + ")");
            // The old primary comes back empty (no persistence), and the way deploy/'s start script
            // brings a Redis pod back: as a replica of the primary the sentinels name. Started bare,
            // as a primary, it is a hazard Redis documents ("Safety of replication when master has
            // persistence turned off"): a sentinel that still takes it for the primary makes the
            // promoted replica a replica of it, and the full resync wipes every record, acknowledged
            // ones included. Waiting until every sentinel named the new primary did not close that
            // window: CI lost 1,010 acknowledged records
            // (about all of those acknowledged before the kill) once.
            awaitEverySentinelNames(sentinelPorts, newPrimaryPort);
            wire.mark("every sentinel names the new primary");
            LocalRedisServer oldPrimary = LocalRedisServer.builder().binary(primary.binary()).port(primary.port())
                    .args("--replicaof", "127.0.0.1", Integer.toString(newPrimaryPort)).build().start();
            open.add(oldPrimary);
            wire.mark("old primary restarted as a replica of the new one");
            RedisClient oldPrimaryClient = RedisClient.create("redis://127.0.0.1:" + oldPrimary.port());
            try (StatefulRedisConnection<String, String> c = oldPrimaryClient.connect()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> c.sync().info("replication")
                        .contains("master_link_status:up"));
            } finally {
                oldPrimaryClient.shutdown();
            }

            // The devices go on through the old primary's full resync before the load ends.
            run.finishAfter(2000);
            wire.mark("devices finished");
            RedisClient newPrimary = RedisClient.create("redis://127.0.0.1:" + newPrimaryPort);
            Set<String> stored;
            try (StatefulRedisConnection<String, String> c = newPrimary.connect()) {
                stored = FaultRun.stored(c.sync());
            } finally {
                newPrimary.shutdown();
            }
            Set<String> lost = new HashSet<>(run.acknowledged());
            lost.removeAll(stored);
            LossReport.print(run.acknowledged(), wire, stored, lost, servers, ackReplicas > 0);
            if (ackReplicas > 0 && !lost.isEmpty()) {
                for (int i = 0; i < 3; i++) {
                    System.out.println("--- sentinel " + i + " log:\n" + Files.readString(sentinelLog(ackReplicas, i)));
                }
            }
            client.shutdown();
            return new Outcome(run.acknowledged().size(), lost.size(), failoverMs, acknowledgedWhileBehind);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }
}
