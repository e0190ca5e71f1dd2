package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/**
 * Three replicas with short settings; one holding devices is killed with SIGKILL, so nothing of it
 * cleans up. The survivors' janitors must evict exactly its entries within TTL + one period.
 */
@WithRedis
class JanitorProcessIT {

    private static final long TTL_MS = 3000;
    private static final long JANITOR_MS = 1000;

    @Test
    void killedReplica_itsEntriesAreEvictedBySurvivors_andOnlyThose(RedisFixture redis) throws Exception {
        List<ServerProcess> servers = new ArrayList<>();
        List<DeviceClient> devices = new ArrayList<>();
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            for (String prefix : List.of("r1", "r2", "r3")) {
                servers.add(ServerProcess.start(Map.of("REDIS_URL", redis.uri(), "INSTANCE_ID", prefix,
                        "HEARTBEAT_TTL_MS", Long.toString(TTL_MS), "HEARTBEAT_INTERVAL_MS", "1000",
                        "JANITOR_INTERVAL_MS", Long.toString(JANITOR_MS), "API_TOKEN", "janitor-process-0123456789abcdef0123456789abcdef")));
            }
            int perServer = 5;
            for (int s = 0; s < servers.size(); s++) {
                for (int d = 0; d < perServer; d++) {
                    DeviceClient device = DeviceClient.connect(servers.get(s).tcpPort);
                    devices.add(device);
                    assertThat(device.login(imei(s * 100 + d))).isEqualTo(1);
                }
            }
            assertThat(commands.hlen("connections:registry")).isEqualTo(15);
            String victim = commands.hget("connections:registry", imei(0));
            Map<String, String> before = commands.hgetall("connections:registry");

            servers.get(0).kill();
            assertThat(servers.get(0).process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            long killedAt = System.nanoTime();

            await().atMost(Duration.ofMillis(TTL_MS + JANITOR_MS + 4000)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !commands.hvals("connections:registry").contains(victim));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            Map<String, String> after = commands.hgetall("connections:registry");
            before.forEach((imei, owner) -> {
                if (!owner.equals(victim)) {
                    assertThat(after).containsEntry(imei, owner);
                }
            });
            assertThat(after).hasSize(10);
            await().atMost(Duration.ofSeconds(5)).until(() -> evictedMetricSum(servers.subList(1, 3), victim) == 5);
            System.out.printf("evicted the killed replica's 5 entries %d ms after SIGKILL (TTL %d ms, janitor %d ms)%n",
                    tookMs, TTL_MS, JANITOR_MS);
        } finally {
            for (DeviceClient d : devices) {
                d.close();
            }
            for (ServerProcess s : servers) {
                s.close();
            }
        }
    }

    private static double evictedMetricSum(List<ServerProcess> survivors, String victim) throws IOException,
            InterruptedException {
        Pattern line = Pattern.compile("^teltonika_registry_janitor_evicted_total\\{instance_id=\"" + Pattern.quote(victim)
                + "\"[^}]*} ([0-9.E]+)$", Pattern.MULTILINE);
        double sum = 0;
        HttpClient http = HttpClient.newHttpClient();
        for (ServerProcess s : survivors) {
            String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = line.matcher(body);
            while (m.find()) {
                sum += Double.parseDouble(m.group(1));
            }
        }
        return sum;
    }

    private static String imei(int i) {
        return TestImeis.numbered(i);
    }
}
