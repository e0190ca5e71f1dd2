package org.fleetpipe.teltonika.simulator.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.cluster.ServerProcess;
import org.junit.jupiter.api.Test;

/**
 * Replicas restarted one by one (SIGTERM, then a new process on the same address) while devices
 * push records and operators send commands: no acknowledged record and no command is lost.
 */
@WithRedis
class RollingRestartUnderLoadIT {

    private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    private static final String TOKEN = "rolling-restart-0123456789abcdef0123456789abcdef";
    private final HttpClient http = HttpClient.newHttpClient();

    private Map<String, String> env(RedisFixture redis, String prefix) {
        return Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix, "HEARTBEAT_TTL_MS", "3000",
                "HEARTBEAT_INTERVAL_MS", "1000", "JANITOR_INTERVAL_MS", "1000", "API_TOKEN", TOKEN,
                "DRAIN_WINDOW", "1s", "COMMAND_REPLY_TIMEOUT", "10s");
    }

    private String post(ServerProcess to, String imei) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.httpPort
                        + "/api/v1/devices/" + imei + "/commands")).header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"getinfo\",\"ttl_ms\":600000}")).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = ID.matcher(r.body());
        assertThat(m.find()).as(r.body()).isTrue();
        return m.group(1);
    }

    private String status(ServerProcess at, String id) throws Exception {
        String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at.httpPort
                + "/api/v1/commands/" + id)).header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("\"status\":\"([a-z]+)\"").matcher(body);
        return m.find() ? m.group(1) : body;
    }

    @Test
    void restartingEveryReplicaUnderLoad_losesNoRecordAndNoCommand(RedisFixture redis) throws Exception {
        List<ServerProcess> replicas = new ArrayList<>();
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            for (String prefix : List.of("r1", "r2", "r3")) {
                replicas.add(ServerProcess.start(env(redis, prefix)));
            }
            FaultRun run = FaultRun.start(replicas.stream().map(r -> new InetSocketAddress("127.0.0.1", r.tcpPort))
                    .toList(), 24);
            await().atMost(Duration.ofSeconds(30)).until(() -> commands.hlen("connections:registry") == 24);
            List<String> imeis = new ArrayList<>(commands.hkeys("connections:registry"));

            Map<String, ServerProcess> sentCommands = new HashMap<>();
            long restartStarted = System.nanoTime();
            for (int i = 0; i < replicas.size(); i++) {
                ServerProcess old = replicas.get(i);
                ServerProcess other = replicas.get((i + 1) % replicas.size());
                for (int c = 0; c < 4; c++) {
                    sentCommands.put(post(other, imeis.get((i * 4 + c) % imeis.size())), other);
                }
                old.terminate();
                assertThat(old.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(old.process().exitValue()).as("a clean stop exits 0").isZero();
                ServerProcess fresh = ServerProcess.start(env(redis, "r" + (i + 1)), old.tcpPort, old.httpPort);
                replicas.set(i, fresh);
                await().atMost(Duration.ofSeconds(30)).until(() -> FaultRun.readiness(fresh.httpPort) == 200);
            }
            long restartMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartStarted);
            // While the devices are still connected: a device answers a command only while it is online.
            ServerProcess any = replicas.get(0);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (String id : sentCommands.keySet()) {
                    assertThat(status(any, id)).as("command %s", id).isEqualTo("replied");
                }
            });
            var result = run.finishAfter(2000);

            Set<String> stored = FaultRun.stored(commands);
            Set<String> lost = new HashSet<>(run.acknowledged());
            lost.removeAll(stored);
            System.out.printf("rolling restart under load: 3 replicas restarted in %d ms; %d records acknowledged, "
                            + "%d distinct in the stream, %d acknowledged but missing; %d of %d commands replied; "
                            + "%d records unacknowledged at the end%n", restartMs, run.acknowledged().size(),
                    stored.size(), lost.size(), sentCommands.size(), sentCommands.size(),
                    result.stats().recordsUnacknowledged());
            assertThat(lost).as("acknowledged records missing from the stream").isEmpty();
            assertThat(result.stats().recordsUnacknowledged()).isZero();
        } finally {
            for (ServerProcess r : replicas) {
                r.close();
            }
        }
    }
}
