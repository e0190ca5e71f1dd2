package org.fleetpipe.teltonika.bridge.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard's "Bridges" row and the bridges' alerting rules may only query
 * {@code teltonika_bridge_*} metrics the bridge exports, under the names Prometheus renders
 * (counters with {@code _total}, the latency timer as {@code _seconds_bucket}/{@code _count}/{@code _sum}).
 * The server's metrics in the same dashboard are checked by DashboardMetricsIT (ingestion-server).
 */
class BridgeDashboardMetricsTest {

    private static final Path DEPLOY = Path.of("..", "deploy");
    private static final Path DASHBOARD = DEPLOY.resolve("grafana/teltonika-ingestion.json");
    private static final Path RULES = DEPLOY.resolve("k8s/bridges/prometheusrule.yaml");
    private static final Pattern METRIC = Pattern.compile("\\b(teltonika_bridge_[a-z0-9_]+)");

    @Test
    void everyBridgeMetricTheDashboardAndTheRulesName_isInTheBridgesScrape() throws Exception {
        Set<String> queried = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                collect(target.path("expr").asText(), queried);
            }
        }
        // What issue 32 asks the row to show.
        assertThat(queried).contains("teltonika_bridge_delivered_total", "teltonika_bridge_retried_total",
                "teltonika_bridge_dead_lettered_total", "teltonika_bridge_duplicates_total",
                "teltonika_bridge_in_flight", "teltonika_bridge_lag_seconds",
                "teltonika_bridge_sink_latency_seconds_bucket", "teltonika_bridge_claimed_total",
                "teltonika_bridge_delivery_delay_seconds_bucket");
        Set<String> alerted = new TreeSet<>();
        // Every name anywhere in the rules file (expressions, descriptions, comments) must be real.
        collect(Files.readString(RULES), alerted);
        assertThat(alerted).contains("teltonika_bridge_lag_seconds", "teltonika_bridge_dead_lettered_total",
                "teltonika_bridge_sink_failing", "teltonika_bridge_delivery_delay_seconds_bucket");

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        BridgeMetrics metrics = new BridgeMetrics(registry, "http", "g", () -> 0);
        // Counters and the histogram are rendered before any event; exercised anyway, so a meter
        // created lazily later would still be seen.
        metrics.delivered(1);
        metrics.refused();
        metrics.malformed();
        metrics.sinkAnswered(1_000_000);
        metrics.deliveryDelay(System.currentTimeMillis() - 1_500);
        metrics.lag(1, 1_000);
        String scrape = registry.scrape();

        Set<String> names = new TreeSet<>(queried);
        names.addAll(alerted);
        for (String name : names) {
            assertThat(scrape).as("%s, named by the dashboard or the bridges' rules", name)
                    .containsPattern("(?m)^" + name + "\\{[^}]*sink=\"http\"");
        }
        assertThat(scrape).containsPattern("(?m)^teltonika_bridge_dead_lettered_total\\{[^}]*reason=\"refused\"")
                .containsPattern("(?m)^teltonika_bridge_dead_lettered_total\\{[^}]*reason=\"malformed\"");
    }

    private static void collect(String text, Set<String> into) {
        Matcher m = METRIC.matcher(text);
        while (m.find()) {
            into.add(m.group(1));
        }
    }
}
