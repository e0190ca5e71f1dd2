package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bridges' manifests (k8s/bridges) against the bridge's own sources, as ManifestContractTest
 * checks the servers' against the server: every variable one the bridge reads, the ports and
 * probe paths the ones it serves, the grace above its shutdown grace, secrets from the Secret,
 * and alerts that lead to a section of OPERATIONS.md. Pure YAML: no kubectl, no cluster.
 */
class BridgeManifestsTest {

    private static final BridgeSource BRIDGE = new BridgeSource(Manifests.repoDir());
    private static final Manifests M = Manifests.bridges();
    private static final String CONTAINER = "bridge";
    private static final String METRICS_ACCESS = "teltonika.fleetpipe.org/metrics-access";
    /** The java launcher's own variable (the memory flags: MemoryBudgetTest). */
    private static final String JDK_JAVA_OPTIONS = "JDK_JAVA_OPTIONS";
    /** Settings that must never be literals in git. */
    private static final Set<String> SECRETS = Set.of("REDIS_URL", "BRIDGE_HTTP_AUTHORIZATION", "MQTT_PASSWORD",
            "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD", "POSTGRES_PASSWORD");
    /**
     * After BRIDGE_SHUTDOWN_GRACE the bridge still waits up to 5 s for its reader, closes the sink
     * (the Kafka producer up to 5 s) and Redis: 15 s before the kubelet's SIGKILL.
     */
    private static final Duration MIN_SHUTDOWN_MARGIN = Duration.ofSeconds(15);
    private static final Pattern ARG_VAR = Pattern.compile("\\$\\(([A-Za-z0-9_]+)\\)");

    @Test
    void bridgeEnvNames_whenParsedFromTheSources_thenIncludeTheOptionsAndTheSecretsReadDirectly() {
        // Guards the parser: an empty or partial list would let the env checks pass vacuously.
        assertThat(BRIDGE.envNames()).contains("BRIDGE_SINK", "REDIS_URL", "REDIS_NAMESPACE", "BRIDGE_GROUP",
                "BRIDGE_CONSUMER", "BRIDGE_SHUTDOWN_GRACE", "BRIDGE_HTTP_PORT", "KAFKA_BOOTSTRAP_SERVERS", "BRIDGE_URL",
                "MQTT_URL", "LOG_LEVEL");
        assertThat(BRIDGE.directEnv()).containsExactlyInAnyOrder("BRIDGE_HTTP_AUTHORIZATION", "MQTT_PASSWORD",
                "KAFKA_SASL_PASSWORD", "POSTGRES_PASSWORD");
        assertThat(BRIDGE.value(Map.of(), "BRIDGE_SHUTDOWN_GRACE")).isEqualTo("20s");
        assertThat(BRIDGE.value(Map.of(), "BRIDGE_HTTP_PORT")).isEqualTo("8090");
        assertThat(BRIDGE.httpPaths()).contains("/metrics", "/health/live", "/health/ready");
    }

    @Test
    void deployments_whenRendered_thenOnePerSinkWithTwoReplicasEachSelectingOnlyItsOwnPods() {
        assertThat(M.all("Deployment")).extracting(d -> d.path("metadata").path("name").asText())
                .containsExactlyInAnyOrder("bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres");
        for (ObjectNode d : M.all("Deployment")) {
            String name = d.path("metadata").path("name").asText();
            String sink = name.substring("bridge-".length());
            Map<String, String> selector = Manifests.strings(d.path("spec").path("selector").path("matchLabels"));

            assertThat(d.path("spec").path("replicas").asInt()).as(name).isEqualTo(2);
            assertThat(literalEnv(d)).as(name).containsEntry("BRIDGE_SINK", sink);
            assertThat(Manifests.podLabelsOf(d)).as(name).containsAllEntriesOf(selector)
                    .containsEntry("app.kubernetes.io/component", sink);
            // The Deployments share the app label: each selector must pick its own pods only.
            assertThat(M.all("Deployment")).filteredOn(o -> Manifests.podLabelsOf(o).entrySet()
                    .containsAll(selector.entrySet())).as("%s selects", name).containsExactly(d);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void envNames_whenRendered_thenTheBridgeReadsEveryOne(String deployment) {
        ObjectNode d = M.get("Deployment", deployment);
        JsonNode c = container(d);
        Set<String> used = new LinkedHashSet<>();
        c.path("env").forEach(e -> used.add(e.path("name").asText()));
        for (JsonNode from : c.path("envFrom")) {
            assertThat(from.has("configMapRef")).as("envFrom only from ConfigMaps: %s", from).isTrue();
            assertThat(from.has("prefix")).isFalse();
            used.addAll(M.configMapData(from.path("configMapRef").path("name").asText()).keySet());
        }
        // Variables that exist only to be expanded into args by Kubernetes ($(NAME)): the bridge
        // never reads them itself, so each must really be used, and defined before its use.
        Set<String> argVars = new LinkedHashSet<>();
        for (JsonNode arg : c.path("args")) {
            Matcher m = ARG_VAR.matcher(arg.asText());
            while (m.find()) {
                argVars.add(m.group(1));
            }
        }
        assertThat(used).as("%s: every $(VAR) of args is an env entry (else it stays literal)", deployment)
                .containsAll(argVars);

        assertThat(used).contains("BRIDGE_SINK", "BRIDGE_CONSUMER", "REDIS_URL", "BRIDGE_SHUTDOWN_GRACE",
                JDK_JAVA_OPTIONS);
        used.remove(JDK_JAVA_OPTIONS);
        used.removeAll(argVars);
        assertThat(BRIDGE.envNames()).as("%s: env vars the bridge reads", deployment).containsAll(used);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void sinkSettings_whenRendered_thenTheOnesItsSinkRequiresAreSet(String deployment) {
        Map<String, String> env = literalEnv(M.get("Deployment", deployment));
        switch (env.get("BRIDGE_SINK")) {
            case "kafka" -> assertThat(env.get("KAFKA_BOOTSTRAP_SERVERS")).isNotBlank();
            case "http" -> assertThat(env.get("BRIDGE_URL")).startsWith("https://");
            case "mqtt" -> {
                assertThat(env.get("MQTT_URL")).matches("(tcp|ssl)://.+");
                assertThat(env.getOrDefault("BRIDGE_TOPIC", "teltonika/{imei}/records")).contains("{imei}");
            }
            case "postgres" -> {
                // The URL is a literal in git: TLS verified, and no password (the bridge refuses one).
                assertThat(env.get("BRIDGE_URL")).startsWith("jdbc:postgresql://").contains("sslmode=verify-full")
                        .doesNotContainIgnoringCase("password");
                assertThat(BRIDGE.value(env, "BRIDGE_TABLE")).isNotBlank();
            }
            default -> throw new AssertionError(deployment + ": BRIDGE_SINK " + env.get("BRIDGE_SINK"));
        }
        // One group per sink, named like it: dlq:bridge:<group> and the alerts' group label follow.
        assertThat(BRIDGE.value(env, "BRIDGE_GROUP")).isIn(null, env.get("BRIDGE_SINK"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void consumer_whenRendered_thenComesFromThePodNameViaTheDownwardApi(String deployment) {
        JsonNode env = env(container(M.get("Deployment", deployment)), "BRIDGE_CONSUMER");

        assertThat(env.has("value")).isFalse();
        assertThat(env.path("valueFrom").path("fieldRef").path("fieldPath").asText()).isEqualTo("metadata.name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void secrets_whenRendered_thenComeFromSecretKeysAndNeverFromLiteralsOrConfigMaps(String deployment) {
        JsonNode c = container(M.get("Deployment", deployment));
        JsonNode redis = env(c, "REDIS_URL").path("valueFrom").path("secretKeyRef");
        assertThat(redis.path("name").asText()).isNotEmpty();
        assertThat(redis.path("key").asText()).isNotEmpty();
        assertThat(redis.path("optional").asBoolean(false)).as("no Redis, no bridge: not optional").isFalse();
        for (JsonNode e : c.path("env")) {
            if (SECRETS.contains(e.path("name").asText())) {
                assertThat(e.has("value")).as("%s: %s is a literal", deployment, e.path("name").asText()).isFalse();
                assertThat(e.path("valueFrom").has("secretKeyRef")).as(e.path("name").asText()).isTrue();
            }
        }
        for (ObjectNode cm : M.all("ConfigMap")) {
            assertThat(Manifests.strings(cm.path("data")).keySet()).doesNotContainAnyElementsOf(SECRETS);
        }
        assertThat(M.all("Secret")).as("the operator creates the Secret; none may be in git").isEmpty();
    }

    @Test
    void secretsReadDirectly_whenRendered_thenTheirSinksGetThemFromTheSecret() {
        assertThat(env(container(M.get("Deployment", "bridge-http")), "BRIDGE_HTTP_AUTHORIZATION")
                .path("valueFrom").path("secretKeyRef").path("key").asText()).isNotEmpty();
        assertThat(env(container(M.get("Deployment", "bridge-mqtt")), "MQTT_PASSWORD")
                .path("valueFrom").path("secretKeyRef").path("key").asText()).isNotEmpty();
        assertThat(env(container(M.get("Deployment", "bridge-kafka")), "KAFKA_SASL_PASSWORD")
                .path("valueFrom").path("secretKeyRef").path("key").asText()).isNotEmpty();
        assertThat(env(container(M.get("Deployment", "bridge-postgres")), "POSTGRES_PASSWORD")
                .path("valueFrom").path("secretKeyRef").path("key").asText()).isNotEmpty();
        List<String> kafkaArgs = new ArrayList<>();
        container(M.get("Deployment", "bridge-kafka")).path("args").forEach(a -> kafkaArgs.add(a.asText()));
        assertThat(String.join(" ", kafkaArgs)).as("no secret in the arguments: anyone on the node reads them")
                .doesNotContain("sasl.jaas.config").doesNotContainIgnoringCase("password");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void portAndProbes_whenRendered_thenTheHealthPortIsBridgeHttpPortAndProbesAskPathsTheBridgeServes(
            String deployment) {
        ObjectNode d = M.get("Deployment", deployment);
        JsonNode c = container(d);
        int httpPort = Integer.parseInt(BRIDGE.value(literalEnv(d), "BRIDGE_HTTP_PORT"));

        assertThat(c.path("ports")).extracting(p -> p.path("name").asText(), p -> p.path("containerPort").asInt(),
                p -> p.path("protocol").asText("TCP"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("health", httpPort, "TCP"));
        assertThat(c.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/live");
        assertThat(c.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/ready");
        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            if (!c.has(probe)) {
                continue;
            }
            JsonNode get = c.path(probe).path("httpGet");
            assertThat(get.isMissingNode()).as("%s must be httpGet", probe).isFalse();
            assertThat(BRIDGE.httpPaths()).as("%s: paths BridgeHttpServer answers", probe)
                    .contains(get.path("path").asText());
            assertThat(get.path("port").asText()).as(probe).isEqualTo("health");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void terminationGracePeriod_whenRendered_thenCoversBridgeShutdownGracePlusTheRestOfTheStop(String deployment) {
        ObjectNode d = M.get("Deployment", deployment);
        Duration grace = BridgeSource.duration(BRIDGE.value(literalEnv(d), "BRIDGE_SHUTDOWN_GRACE"));
        Duration period = Duration.ofSeconds(Manifests.podSpecOf(d).path("terminationGracePeriodSeconds").asLong(30));

        assertThat(period).as("terminationGracePeriodSeconds vs BRIDGE_SHUTDOWN_GRACE %ss + margin %ss",
                grace.toSeconds(), MIN_SHUTDOWN_MARGIN.toSeconds()).isGreaterThanOrEqualTo(grace.plus(MIN_SHUTDOWN_MARGIN));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void securityContext_whenRendered_thenLikeTheServersNonRootReadOnlyWithAWritableTmpAndResources(String deployment) {
        ObjectNode d = M.get("Deployment", deployment);
        JsonNode pod = Manifests.podSpecOf(d);
        JsonNode c = container(d);
        JsonNode server = Manifests.base().podSpec().path("securityContext");

        assertThat(pod.path("securityContext")).as("pod securityContext as the server's").isEqualTo(server);
        assertThat(c.path("securityContext")).isEqualTo(Manifests.base().container().path("securityContext"));
        assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).isFalse();
        assertThat(c.path("volumeMounts")).anySatisfy(v -> assertThat(v.path("mountPath").asText()).isEqualTo("/tmp"));
        assertThat(pod.path("volumes")).anySatisfy(v -> assertThat(v.has("emptyDir")).isTrue());
        assertThat(c.path("resources").path("requests").has("cpu")).isTrue();
        assertThat(c.path("resources").path("requests").has("memory")).isTrue();
        assertThat(c.path("resources").path("limits").has("memory")).as("MaxRAMPercentage needs a limit").isTrue();
    }

    @Test
    void podDisruptionBudgets_whenRendered_thenOnePerDeploymentAllowingOneDisruption() {
        for (ObjectNode d : M.all("Deployment")) {
            String name = d.path("metadata").path("name").asText();
            JsonNode pdb = M.get("PodDisruptionBudget", name).path("spec");
            Map<String, String> selector = Manifests.strings(pdb.path("selector").path("matchLabels"));

            assertThat(pdb.path("maxUnavailable").asInt()).as(name).isEqualTo(1);
            assertThat(M.all("Deployment")).filteredOn(o -> Manifests.podLabelsOf(o).entrySet()
                    .containsAll(selector.entrySet())).as("%s PDB selects", name).containsExactly(d);
        }
    }

    @Test
    void podMonitor_whenRendered_thenScrapesMetricsOfEveryBridgeOnItsHealthPortUnderTheAlertsJob() {
        ObjectNode monitor = M.get("PodMonitor", "teltonika-bridges");
        Map<String, String> selector = Manifests.strings(monitor.path("spec").path("selector").path("matchLabels"));

        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(selector).isNotEmpty();
        String jobLabel = monitor.path("spec").path("jobLabel").asText();
        Set<String> jobs = new LinkedHashSet<>();
        for (ObjectNode d : M.all("Deployment")) {
            assertThat(Manifests.podLabelsOf(d)).as(d.path("metadata").path("name").asText())
                    .containsAllEntriesOf(selector).containsKey(jobLabel);
            jobs.add(Manifests.podLabelsOf(d).get(jobLabel));
        }
        assertThat(jobs).as("one job for all bridges").hasSize(1);
        assertThat(monitor.path("spec").path("podMetricsEndpoints")).singleElement().satisfies(e -> {
            assertThat(e.path("path").asText()).isEqualTo("/metrics");
            assertThat(BRIDGE.httpPaths()).contains(e.path("path").asText());
            assertThat(e.path("port").asText()).isEqualTo("health");
        });
        // The rules' up{job=...} must be this job, or the down alerts see nothing and absent() fires.
        Pattern upJob = Pattern.compile("\\bup\\{job=\"([^\"]+)\"}");
        List<String> asked = new ArrayList<>();
        for (JsonNode group : M.get("PrometheusRule", "teltonika-bridges").path("spec").path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                Matcher m = upJob.matcher(rule.path("expr").asText());
                while (m.find()) {
                    asked.add(m.group(1));
                }
            }
        }
        assertThat(asked).as("rules ask for up{job=...}").isNotEmpty().containsOnly(jobs.iterator().next());
    }

    @Test
    void networkPolicy_whenRendered_thenOnlyTheHealthPortFromTheMetricsNamespaces() {
        JsonNode spec = M.get("NetworkPolicy", "teltonika-bridges").path("spec");
        Map<String, String> selector = Manifests.strings(spec.path("podSelector").path("matchLabels"));

        for (ObjectNode d : M.all("Deployment")) {
            assertThat(Manifests.podLabelsOf(d)).containsAllEntriesOf(selector);
        }
        assertThat(spec.path("policyTypes")).extracting(JsonNode::asText).containsExactly("Ingress");
        assertThat(spec.path("ingress")).singleElement().satisfies(rule -> {
            assertThat(rule.path("ports")).extracting(p -> p.path("port").asText(), p -> p.path("protocol").asText("TCP"))
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("health", "TCP"));
            assertThat(rule.path("from")).isNotEmpty().allSatisfy(f -> assertThat(
                    Manifests.strings(f.path("namespaceSelector").path("matchLabels")))
                    .containsExactly(Map.entry(METRICS_ACCESS, "allowed")));
        });
    }

    @Test
    void alerts_whenRendered_thenCoverLagDeadLettersSinkFailingAndDownEachWithSummaryAndARunbookSection()
            throws Exception {
        JsonNode groups = M.get("PrometheusRule", "teltonika-bridges").path("spec").path("groups");
        Set<String> anchors = markdownAnchors(Files.readString(Manifests.repoDir().resolve("OPERATIONS.md")));
        Map<String, String> exprs = new LinkedHashMap<>();
        for (JsonNode group : groups) {
            for (JsonNode rule : group.path("rules")) {
                String alert = rule.path("alert").asText();
                exprs.put(alert, rule.path("expr").asText());
                assertThat(alert).startsWith("TeltonikaBridge");
                assertThat(rule.path("labels").path("severity").asText()).as(alert).isIn("warning", "critical");
                assertThat(rule.path("for").asText()).as(alert).isNotEmpty();
                assertThat(rule.path("annotations").path("summary").asText()).as(alert).isNotBlank();
                String runbook = rule.path("annotations").path("runbook_url").asText();
                assertThat(runbook).as(alert).startsWith("OPERATIONS.md#");
                assertThat(anchors).as("%s: %s is a heading of OPERATIONS.md", alert, runbook)
                        .contains(runbook.substring(runbook.indexOf('#') + 1));
            }
        }
        assertThat(exprs.values()).anySatisfy(e -> assertThat(e).contains("teltonika_bridge_lag_seconds").contains("> 300"))
                .anySatisfy(e -> assertThat(e).contains("teltonika_bridge_lag_seconds").contains("> 1800"))
                .anySatisfy(e -> assertThat(e).contains("rate(teltonika_bridge_dead_lettered_total"))
                .anySatisfy(e -> assertThat(e).contains("teltonika_bridge_sink_failing").contains("== 1"))
                .anySatisfy(e -> assertThat(e).contains("absent(up{"));
    }

    @Test
    void dockerfile_whenRead_thenBuildsTheBridgeJarRunsAsTheManifestsUserExposesTheHealthPortAndUsesExecForm()
            throws Exception {
        String dockerfile = Files.readString(Manifests.deployDir().resolve("Dockerfile.bridge"));
        ObjectNode d = M.get("Deployment", "bridge-kafka");
        long runAsUser = Manifests.podSpecOf(d).path("securityContext").path("runAsUser").asLong();

        assertThat(dockerfile).containsPattern("(?m)^EXPOSE .*\\b" + BRIDGE.value(Map.of(), "BRIDGE_HTTP_PORT") + "\\b");
        assertThat(dockerfile).containsPattern("(?m)^USER " + runAsUser + "(:\\d+)?\\s*$");
        assertThat(dockerfile).containsPattern("(?m)^FROM eclipse-temurin:17-jre\\s*$");
        assertThat(dockerfile).containsPattern("(?m)^ENTRYPOINT \\[\"java\", \"-XX:\\+ExitOnOutOfMemoryError\", \"-jar\", \"/app/bridge.jar\"]")
                .containsPattern("(?m)^ENV JDK_JAVA_OPTIONS=\"-XX:MaxRAMPercentage=\\d+ -XX:MaxDirectMemorySize=");
        assertThat(dockerfile).contains("mvn -B -ntp -DskipTests -pl bridge -am package")
                .contains("cp bridge/target/bridge.jar /bridge.jar");
        assertThat(Manifests.deployDir().resolve("Dockerfile.bridge.dockerignore")).exists();
        for (ObjectNode deployment : M.all("Deployment")) {
            assertThat(container(deployment).path("image").asText()).startsWith("ghcr.io/fleetpipe/teltonika-bridge:");
        }
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
    static Set<String> markdownAnchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Matcher heading = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*$").matcher(markdown);
        while (heading.find()) {
            anchors.add(heading.group(1).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
        }
        return anchors;
    }

    private static JsonNode container(JsonNode deployment) {
        return Manifests.containerOf(deployment, CONTAINER);
    }

    /** Literal env values and envFrom ConfigMap data (Secrets and the Downward API left out). */
    private static Map<String, String> literalEnv(JsonNode deployment) {
        JsonNode c = container(deployment);
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode from : c.path("envFrom")) {
            env.putAll(M.configMapData(from.path("configMapRef").path("name").asText()));
        }
        for (JsonNode e : c.path("env")) {
            if (e.has("value")) {
                env.put(e.path("name").asText(), e.path("value").asText());
            }
        }
        return env;
    }

    private static JsonNode env(JsonNode container, String name) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        container.path("env").forEach(e -> byName.put(e.path("name").asText(), e));
        assertThat(byName).as("container env").containsKey(name);
        return byName.get(name);
    }
}
