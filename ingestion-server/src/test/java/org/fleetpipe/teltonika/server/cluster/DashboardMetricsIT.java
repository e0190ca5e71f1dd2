package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard in deploy/grafana may only query metrics the server exports: every
 * metric name in its queries must appear in a real scrape of a running server.
 */
@WithRedis
class DashboardMetricsIT {

    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "teltonika-ingestion.json");
    private static final Pattern METRIC = Pattern.compile("\\b((?:teltonika|jvm|process|netty)_[a-z0-9_]+)");

    @Test
    void everyMetricTheDashboardQueries_isInTheServersScrape(RedisFixture redis) throws Exception {
        Set<String> queried = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                Matcher m = METRIC.matcher(target.get("expr").asText());
                while (m.find()) {
                    queried.add(m.group(1));
                }
            }
        }
        assertThat(queried).hasSizeGreaterThan(15);

        try (IngestionServer server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(),
                "tcp-port", 0, "udp-port", 0, "http-port", 0, "bind-address", "127.0.0.1",
                "janitor.interval", "300ms", "ops.queue-health.interval", "300ms"))).start()) {
            // Traffic, so that histograms and per-instance series exist: a packet and a janitor eviction.
            try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
                assertThat(device.login("352093081452251")).isEqualTo(1);
                assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
            }
            try (var connection = redis.client().connect()) {
                connection.sync().hset("connections:registry", "490154203237518", "gone-1");
            }
            HttpClient http = HttpClient.newHttpClient();
            URI metrics = URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + "/metrics");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                String scrape = http.send(HttpRequest.newBuilder(metrics).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                for (String name : queried) {
                    assertThat(scrape).as("metric %s queried by the dashboard", name)
                            .containsPattern("(?m)^" + name + "[{ ]");
                }
            });
        }
    }
}
