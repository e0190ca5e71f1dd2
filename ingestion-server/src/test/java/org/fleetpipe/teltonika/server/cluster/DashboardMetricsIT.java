package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
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
 * The Grafana dashboard in deploy/grafana and the alerting rules in deploy/k8s may only query
 * metrics the server exports: every metric name in their queries must appear in a real scrape of a
 * running server (the bridges' row and rules excepted: BridgeDashboardMetricsTest).
 */
@WithRedis
class DashboardMetricsIT {

    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "teltonika-ingestion.json");
    private static final Path RULES = Path.of("..", "deploy", "k8s", "base", "prometheusrule.yaml");
    private static final String BRIDGE_PREFIX = "teltonika_bridge_";
    private static final Pattern METRIC = Pattern.compile("\\b((?:teltonika|jvm|process|netty)_[a-z0-9_]+)");

    @Test
    void everyMetricTheDashboardQueries_isInTheServersScrape(RedisFixture redis) throws Exception {
        Set<String> queried = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        // Rows have no targets. The "Bridges" row's teltonika_bridge_* metrics are the bridge's, not
        // the server's: BridgeDashboardMetricsTest (bridge module) checks them against its registry.
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.path("targets")) {
                Matcher m = METRIC.matcher(target.get("expr").asText());
                while (m.find()) {
                    if (!m.group(1).startsWith(BRIDGE_PREFIX)) {
                        queried.add(m.group(1));
                    }
                }
            }
        }
        assertThat(queried).hasSizeGreaterThan(15);
        Set<String> alerted = new TreeSet<>();
        Set<String> alerts = new TreeSet<>();
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile());
        for (JsonNode group : rules.get("spec").get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                alerts.add(rule.get("alert").asText());
                Matcher m = METRIC.matcher(rule.get("expr").asText());
                while (m.find()) {
                    alerted.add(m.group(1));
                }
            }
        }
        // What issue 18 asks the rules to cover: lag, back-pressure, Redis errors, readiness, queue health.
        assertThat(alerted).contains("teltonika_telemetry_group_oldest_undelivered_age_seconds",
                "teltonika_telemetry_backpressure", "teltonika_redis_errors_total", "teltonika_ready",
                "teltonika_queue_status");
        assertThat(alerts).allMatch(name -> name.startsWith("Teltonika"));
        queried.addAll(alerted);
        // Per-group series exist only while a consumer group reads the stream.
        try (var connection = redis.client().connect()) {
            connection.sync().xgroupCreate(io.lettuce.core.XReadArgs.StreamOffset.from("telemetry", "0"), "dashboard",
                    io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
        }

        try (IngestionServer server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(),
                "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1",
                "janitor.interval", "300ms", "ops.queue-health.interval", "300ms",
                "telemetry.retention.interval", "200ms"))).start()) {
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
