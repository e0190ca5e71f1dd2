package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kustomize overlays against CONTRACT.md and the server's own configuration sources, so the
 * manifests cannot drift from the server silently. Pure YAML: no kubectl, no cluster.
 */
class ManifestContractTest {

    /** Contract ports (CONTRACT.md, "Process, ports, configuration"). */
    private static final int DEVICE_PORT = 5027;
    private static final int HTTP_PORT = 8080;
    /** The probes' and scrapes' own listener (issue 29: they never wait behind API clients). */
    private static final int HEALTH_PORT = 8081;
    /** The namespace labels the NetworkPolicy lets in (deploy/README.md, "NetworkPolicy"). */
    private static final String API_ACCESS = "teltonika.fleetpipe.org/api-access";
    private static final String METRICS_ACCESS = "teltonika.fleetpipe.org/metrics-access";

    /**
     * After SHUTDOWN_GRACE the server still closes device connections, waits for their registry
     * releases, retires its heartbeat and closes Redis and its event loops (up to 2 s quiet
     * period each); 10 s leaves room for that before the kubelet's SIGKILL.
     */
    private static final Duration MIN_SHUTDOWN_MARGIN = Duration.ofSeconds(10);

    private static final ServerConfig SERVER = new ServerConfig(Manifests.serverResources());

    // ---- the server's side ---------------------------------------------------------------

    @Test
    void serverEnvNames_whenParsedFromEnvOverridesAndLogback_thenIncludeTheContractVariables() {
        // Guards the parser: an empty or partial list would let the env checks pass vacuously.
        assertThat(SERVER.envNames()).containsKeys("TCP_PORT", "UDP_PORT", "HTTP_PORT", "REDIS_URL", "INSTANCE_ID",
                "HEARTBEAT_TTL_MS", "HEARTBEAT_INTERVAL_MS", "JANITOR_INTERVAL_MS", "JANITOR_DRY_RUN", "API_TOKEN",
                "SHUTDOWN_GRACE", "LOG_LEVEL");
        assertThat(SERVER.envNames()).containsEntry("INSTANCE_ID", "instance-id-prefix")
                .containsEntry("LOG_LEVEL", "log.level");
    }

    // ---- ports and Services --------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void containerPorts_whenOverlayRendered_thenDeviceTcpUdpHttpAndHealthAreNamedAndMatchTheServersPorts(
            String overlay) {
        Manifests m = Manifests.overlay(overlay);
        Config server = SERVER.resolve(m.literalEnvironment());

        assertThat(m.container().path("ports")).extracting(p -> p.path("name").asText(),
                        p -> p.path("containerPort").asInt(), p -> p.path("protocol").asText("TCP"))
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("device-tcp", DEVICE_PORT, "TCP"),
                        org.assertj.core.groups.Tuple.tuple("device-udp", DEVICE_PORT, "UDP"),
                        org.assertj.core.groups.Tuple.tuple("http", HTTP_PORT, "TCP"),
                        org.assertj.core.groups.Tuple.tuple("health", HEALTH_PORT, "TCP"));
        // The ports the server really binds with this environment (env override or reference.conf default).
        assertThat(server.getInt("tcp-port")).as("TCP_PORT").isEqualTo(DEVICE_PORT);
        assertThat(server.getInt("udp-port")).as("UDP_PORT").isEqualTo(DEVICE_PORT);
        assertThat(server.getInt("http-port")).as("HTTP_PORT").isEqualTo(HTTP_PORT);
        assertThat(server.getInt("health-port")).as("HEALTH_PORT").isEqualTo(HEALTH_PORT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void devicesService_whenOverlayRendered_thenLoadBalancerExposesTcpAndUdp5027WithLocalTrafficPolicy(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        JsonNode spec = m.get("Service", "teltonika-devices").path("spec");

        assertThat(spec.path("type").asText()).isEqualTo("LoadBalancer");
        assertThat(spec.path("externalTrafficPolicy").asText()).isEqualTo("Local");
        assertThat(spec.path("ports")).extracting(p -> p.path("protocol").asText("TCP"), p -> p.path("port").asInt(),
                        p -> p.path("targetPort").asText())
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("TCP", DEVICE_PORT, "device-tcp"),
                        org.assertj.core.groups.Tuple.tuple("UDP", DEVICE_PORT, "device-udp"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void httpService_whenOverlayRendered_thenClusterIpOn8080And8081TargetsTheHttpAndHealthPorts(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        JsonNode spec = m.get("Service", "teltonika-http").path("spec");

        assertThat(spec.path("type").asText("ClusterIP")).isEqualTo("ClusterIP");
        assertThat(spec.path("ports")).extracting(p -> p.path("name").asText(), p -> p.path("port").asInt(),
                        p -> p.path("targetPort").asText())
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("http", HTTP_PORT, "http"),
                        org.assertj.core.groups.Tuple.tuple("health", HEALTH_PORT, "health"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void serviceTargetPorts_whenOverlayRendered_thenEachNamesAContainerPortOfTheSameProtocolAndNumber(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        for (String service : List.of("teltonika-devices", "teltonika-http")) {
            for (JsonNode p : m.get("Service", service).path("spec").path("ports")) {
                String protocol = p.path("protocol").asText("TCP");
                assertThat(m.containerPort(p.path("targetPort"), protocol))
                        .as("%s: %s targetPort %s/%s", overlay, service, p.path("targetPort").asText(), protocol)
                        .hasValueSatisfying(c -> assertThat(c.path("containerPort").asInt())
                                .isEqualTo(p.path("port").asInt()));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void selectors_whenOverlayRendered_thenServicesDeploymentAndPdbSelectThePods(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        Map<String, String> pod = m.podLabels();

        assertThat(pod).containsAllEntriesOf(Manifests.strings(m.deployment().path("spec").path("selector").path("matchLabels")));
        for (String service : List.of("teltonika-devices", "teltonika-http")) {
            Map<String, String> selector = Manifests.strings(m.get("Service", service).path("spec").path("selector"));
            assertThat(selector).as(service).isNotEmpty();
            assertThat(pod).as(service).containsAllEntriesOf(selector);
        }
        JsonNode pdb = m.get("PodDisruptionBudget", Manifests.DEPLOYMENT).path("spec");
        Map<String, String> pdbSelector = Manifests.strings(pdb.path("selector").path("matchLabels"));
        assertThat(pdbSelector).isNotEmpty();
        assertThat(pdb.path("selector").has("matchExpressions")).isFalse();
        assertThat(pod).containsAllEntriesOf(pdbSelector);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void pdb_whenOverlayRendered_thenAllowsOneVoluntaryDisruptionAndKeepsTheRest(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        int replicas = m.deployment().path("spec").path("replicas").asInt();
        JsonNode pdb = m.get("PodDisruptionBudget", Manifests.DEPLOYMENT).path("spec");

        // A drain must be able to proceed, and must never take more than one replica at once.
        if (pdb.has("maxUnavailable")) {
            assertThat(pdb.path("maxUnavailable").asInt()).isEqualTo(1);
        } else {
            assertThat(pdb.path("minAvailable").asInt()).isEqualTo(replicas - 1);
        }
        assertThat(replicas).isGreaterThanOrEqualTo(2);
    }

    @Test
    void replicas_whenBaseAndOverlaysRendered_thenBase3Dev2ProdAtLeast3() {
        assertThat(Manifests.base().deployment().path("spec").path("replicas").asInt()).isEqualTo(3);
        assertThat(Manifests.overlay("dev").deployment().path("spec").path("replicas").asInt()).isEqualTo(2);
        assertThat(Manifests.overlay("prod").deployment().path("spec").path("replicas").asInt()).isGreaterThanOrEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void serviceMonitor_whenOverlayRendered_thenScrapesMetricsOnTheHttpServicePort(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        ObjectNode monitor = m.get("ServiceMonitor", Manifests.DEPLOYMENT);
        ObjectNode http = m.get("Service", "teltonika-http");

        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(Manifests.strings(http.path("metadata").path("labels")))
                .containsAllEntriesOf(Manifests.strings(monitor.path("spec").path("selector").path("matchLabels")));
        assertThat(m.get("Service", "teltonika-devices").path("metadata").path("labels").path("app.kubernetes.io/component").asText())
                .as("the devices Service must not be scraped").isNotEqualTo("http");
        assertThat(monitor.path("spec").path("endpoints")).singleElement().satisfies(e -> {
            assertThat(e.path("path").asText()).isEqualTo("/metrics");
            assertThat(e.path("port").asText()).as("scrapes never wait behind API clients").isEqualTo("health");
            assertThat(http.path("spec").path("ports")).extracting(p -> p.path("name").asText()).contains(e.path("port").asText());
        });
    }

    // ---- probes and shutdown -------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void probes_whenOverlayRendered_thenLivenessAndReadinessUseTheHealthEndpointsOnTheHealthPort(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        JsonNode c = m.container();

        assertThat(c.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/live");
        assertThat(c.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/ready");
        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            if (!c.has(probe)) {
                continue;
            }
            JsonNode get = c.path(probe).path("httpGet");
            assertThat(get.isMissingNode()).as("%s must be httpGet (not tcpSocket/exec)", probe).isFalse();
            assertThat(get.path("path").asText()).as(probe).startsWith("/health/");
            assertThat(m.containerPort(get.path("port"), "TCP")).as("%s port", probe)
                    .hasValueSatisfying(p -> assertThat(p.path("name").asText()).isEqualTo("health"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void terminationGracePeriod_whenOverlayRendered_thenCoversPreStopSleepPlusShutdownGracePlusMargin(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        Duration preStop = Duration.ofSeconds(preStopSleepSeconds(m.container()));
        Duration grace = SERVER.resolve(m.literalEnvironment()).getDuration("shutdown.grace");
        Duration period = Duration.ofSeconds(m.podSpec().path("terminationGracePeriodSeconds").asLong(30));

        assertThat(preStop).as("preStop sleep: the load balancer needs time to see the pod go").isPositive();
        assertThat(period).as("terminationGracePeriodSeconds vs preStop %ss + SHUTDOWN_GRACE %ss + margin %ss",
                        preStop.toSeconds(), grace.toSeconds(), MIN_SHUTDOWN_MARGIN.toSeconds())
                .isGreaterThanOrEqualTo(preStop.plus(grace).plus(MIN_SHUTDOWN_MARGIN));
    }

    /** {@code exec: sleep N} (any image with /bin/sleep) or the native {@code sleep: {seconds: N}} action. */
    private static long preStopSleepSeconds(JsonNode container) {
        JsonNode preStop = container.path("lifecycle").path("preStop");
        if (preStop.has("sleep")) {
            return preStop.path("sleep").path("seconds").asLong();
        }
        List<String> command = new ArrayList<>();
        preStop.path("exec").path("command").forEach(a -> command.add(a.asText()));
        Matcher sleep = Pattern.compile("(?:^|\\s|/)sleep\\s+(\\d+)\\s*$").matcher(String.join(" ", command));
        assertThat(sleep.find()).as("preStop must be a sleep, got %s", command).isTrue();
        return Long.parseLong(sleep.group(1));
    }

    // ---- environment -----------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void envNames_whenOverlayRendered_thenTheServerReadsEveryOne(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        Set<String> used = new LinkedHashSet<>();
        m.container().path("env").forEach(e -> used.add(e.path("name").asText()));
        for (JsonNode from : m.container().path("envFrom")) {
            assertThat(from.has("configMapRef")).as("envFrom only from ConfigMaps: %s", from).isTrue();
            assertThat(from.has("prefix")).isFalse();
            String name = from.path("configMapRef").path("name").asText();
            assertThat(m.maybe("ConfigMap", name)).as("envFrom ConfigMap %s is rendered", name).isPresent();
        }
        // Every key of the server's envFrom ConfigMaps (the Redis pods' ConfigMaps are not the server's).
        used.addAll(m.literalEnvironment().keySet());

        assertThat(used).contains("INSTANCE_ID", "REDIS_URL", "API_TOKEN", "HEARTBEAT_TTL_MS", "JANITOR_INTERVAL_MS",
                "LOG_LEVEL", "JDK_JAVA_OPTIONS");
        // The java launcher's own variable (the memory flags, MemoryBudgetTest); every other one is the server's.
        used.remove("JDK_JAVA_OPTIONS");
        assertThat(SERVER.envNames().keySet()).as("env vars the server reads").containsAll(used);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void instanceId_whenOverlayRendered_thenComesFromThePodNameViaTheDownwardApi(String overlay) {
        JsonNode env = env(Manifests.overlay(overlay).container(), "INSTANCE_ID");

        assertThat(env.has("value")).isFalse();
        assertThat(env.path("valueFrom").path("fieldRef").path("fieldPath").asText()).isEqualTo("metadata.name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void redisUrlAndApiToken_whenOverlayRendered_thenComeFromSecretKeys(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        for (String name : List.of("REDIS_URL", "API_TOKEN")) {
            JsonNode env = env(m.container(), name);
            assertThat(env.has("value")).as("%s must not be a literal", name).isFalse();
            JsonNode ref = env.path("valueFrom").path("secretKeyRef");
            assertThat(ref.path("name").asText()).as(name).isNotEmpty();
            assertThat(ref.path("key").asText()).as(name).isNotEmpty();
            assertThat(ref.path("optional").asBoolean(false)).as("%s optional: unset means embedded Redis", name).isFalse();
        }
        for (ObjectNode cm : m.all("ConfigMap")) {
            assertThat(cm.path("data").has("REDIS_URL") || cm.path("data").has("API_TOKEN"))
                    .as("ConfigMap %s holds a secret setting", cm.path("metadata").path("name").asText()).isFalse();
        }
    }

    @Test
    void devSecret_isInNoManifest_theScriptMakesEveryKeyTheDevPodsRead_withRandomValues() throws Exception {
        Manifests m = Manifests.overlay("dev");
        assertThat(m.all("Secret")).as("no token or password in git, not even a placeholder").isEmpty();
        CreateSecretScript script = CreateSecretScript.read();
        List<ObjectNode> containers = new ArrayList<>(List.of((ObjectNode) m.container()));
        for (String sts : List.of("redis", "redis-sentinel")) {
            containers.add((ObjectNode) Manifests.containerOf(m.get("StatefulSet", sts),
                    sts.equals("redis") ? "redis" : "sentinel"));
        }
        for (ObjectNode container : containers) {
            for (JsonNode e : container.path("env")) {
                JsonNode ref = e.path("valueFrom").path("secretKeyRef");
                if (!ref.isMissingNode() && !ref.path("optional").asBoolean(false)) {
                    assertThat(ref.path("name").asText()).isEqualTo(script.secretName());
                    assertThat(script.keys()).as("%s", e.path("name").asText()).contains(ref.path("key").asText());
                }
            }
        }
        assertThat(script.value("redis-password")).isEqualTo("$password");
        assertThat(script.value("api-token")).isEqualTo("$token");
        assertThat(script.text()).contains("password=$(random_hex 24)", "token=$(random_hex 32)", "/dev/urandom");
        // Which sentinels and which master name: DevRedisSentinelTest.
        assertThat(script.value("redis-url")).startsWith("redis-sentinel://:$password@");
    }

    @Test
    void prodOverlay_whenRendered_thenShipsNoSecretAndNoRedis() {
        Manifests m = Manifests.overlay("prod");

        assertThat(m.all("Secret")).as("the operator creates the prod Secret; none may be in git").isEmpty();
        assertThat(m.all("StatefulSet")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void configMapSettings_whenResolvedLikeTheServer_thenAreValidAndHeartbeatIntervalIsAtMostHalfTheTtl(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        Config server = SERVER.resolve(m.literalEnvironment());

        Duration ttl = server.getDuration("heartbeat.ttl");
        Duration interval = server.getDuration("heartbeat.interval");
        assertThat(interval.multipliedBy(2)).as("HEARTBEAT_INTERVAL_MS at most half HEARTBEAT_TTL_MS").isLessThanOrEqualTo(ttl);
        assertThat(server.getDuration("janitor.interval")).isPositive();
        assertThat(server.getDuration("redis.command-timeout")).isPositive();
        assertThat(server.getBoolean("janitor.dry-run")).as("JANITOR_DRY_RUN in a deployed overlay").isFalse();
        // The env value really reached the setting (guards resolve() against silently using defaults).
        assertThat(ttl.toMillis()).isEqualTo(Long.parseLong(m.literalEnvironment().get("HEARTBEAT_TTL_MS")));
        assertThat(m.literalEnvironment().get("LOG_LEVEL")).isIn("TRACE", "DEBUG", "INFO", "WARN", "ERROR");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void ackReplicas_whenOverlayRendered_thenIsOneAndInTheRangeTheServerAccepts(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        long[] bounds = SERVER.intBounds("telemetry.ack-replicas");

        // Resolved like the server does, so a typo in the name or a non-number fails here, not at start.
        long ackReplicas = SERVER.resolve(m.literalEnvironment()).getLong("telemetry.ack-replicas");
        assertThat(ackReplicas).as("ACK_REPLICAS in %s", overlay).isEqualTo(1);
        assertThat(ackReplicas).as("SettingsLoader's range").isBetween(bounds[0], bounds[1]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void services_whenOverlayRendered_thenEachSelectsOneWorkloadsPodsAndTargetsItsContainerPorts(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        for (ObjectNode service : m.all("Service")) {
            String name = service.path("metadata").path("name").asText();
            Map<String, String> selector = Manifests.strings(service.path("spec").path("selector"));
            assertThat(selector).as("%s selector", name).isNotEmpty();
            List<ObjectNode> selected = m.workloads().stream()
                    .filter(w -> Manifests.podLabelsOf(w).entrySet().containsAll(selector.entrySet()))
                    .toList();
            assertThat(selected).as("%s: workloads whose pods it selects", name).hasSize(1);
            JsonNode pod = Manifests.podSpecOf(selected.get(0));
            for (JsonNode port : service.path("spec").path("ports")) {
                String protocol = port.path("protocol").asText("TCP");
                JsonNode target = port.path("targetPort");
                List<JsonNode> matches = new ArrayList<>();
                pod.path("containers").forEach(c -> c.path("ports").forEach(p -> {
                    boolean same = target.isNumber() ? p.path("containerPort").asInt() == target.asInt()
                            : target.asText().equals(p.path("name").asText());
                    if (same && protocol.equals(p.path("protocol").asText("TCP"))) {
                        matches.add(p);
                    }
                }));
                assertThat(matches).as("%s: targetPort %s/%s", name, target.asText(), protocol).singleElement()
                        .satisfies(p -> assertThat(p.path("containerPort").asInt()).as("%s port", name)
                                .isEqualTo(port.path("port").asInt()));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void statefulSets_whenOverlayRendered_thenServiceNameIsAHeadlessServiceThatPublishesStartingPods(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        for (ObjectNode sts : m.all("StatefulSet")) {
            String name = sts.path("metadata").path("name").asText();
            assertThat(Manifests.podLabelsOf(sts)).as(name)
                    .containsAllEntriesOf(Manifests.strings(sts.path("spec").path("selector").path("matchLabels")));
            JsonNode service = m.get("Service", sts.path("spec").path("serviceName").asText()).path("spec");
            // Pod DNS names (<pod>.<service>) exist only behind a headless Service; a replica or a
            // sentinel must be reachable by name before it is ready.
            assertThat(service.path("clusterIP").asText()).as("%s: headless", name).isEqualTo("None");
            assertThat(service.path("publishNotReadyAddresses").asBoolean(false)).as(name).isTrue();
            assertThat(Manifests.podLabelsOf(sts)).as(name)
                    .containsAllEntriesOf(Manifests.strings(service.path("selector")));
        }
    }

    // ---- security --------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void securityContext_whenOverlayRendered_thenRunsAsNonRootWithReadOnlyRootAndAWritableTmp(String overlay) {
        Manifests m = Manifests.overlay(overlay);
        JsonNode pod = m.podSpec().path("securityContext");
        JsonNode container = m.container().path("securityContext");

        assertThat(container.path("runAsNonRoot").asBoolean(pod.path("runAsNonRoot").asBoolean(false))).isTrue();
        assertThat(container.path("runAsUser").asLong(pod.path("runAsUser").asLong(-1))).isPositive();
        assertThat(container.path("readOnlyRootFilesystem").asBoolean(false)).isTrue();
        assertThat(container.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
        assertThat(container.path("capabilities").path("drop")).extracting(JsonNode::asText).contains("ALL");

        JsonNode tmp = null;
        for (JsonNode mount : m.container().path("volumeMounts")) {
            if ("/tmp".equals(mount.path("mountPath").asText())) {
                tmp = mount;
            }
        }
        assertThat(tmp).as("a writable /tmp (Netty extracts its native transport there)").isNotNull();
        String volume = tmp.path("name").asText();
        assertThat(m.podSpec().path("volumes")).anySatisfy(v -> {
            assertThat(v.path("name").asText()).isEqualTo(volume);
            assertThat(v.has("emptyDir")).isTrue();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod", "bridges"})
    void everyWorkload_whenOverlayRendered_thenRunsNonRootReadOnlyWithoutCapabilitiesWithProbesAndResources(String overlay) {
        Manifests m = Manifests.tree(overlay);
        for (ObjectNode w : m.workloads()) {
            JsonNode pod = Manifests.podSpecOf(w).path("securityContext");
            assertThat(pod.path("seccompProfile").path("type").asText()).as("%s seccomp", w.path("metadata").path("name"))
                    .isEqualTo("RuntimeDefault");
            for (JsonNode c : Manifests.podSpecOf(w).path("containers")) {
                String id = w.path("metadata").path("name").asText() + "/" + c.path("name").asText();
                JsonNode sc = c.path("securityContext");
                assertThat(sc.path("runAsNonRoot").asBoolean(pod.path("runAsNonRoot").asBoolean(false))).as(id).isTrue();
                assertThat(sc.path("runAsUser").asLong(pod.path("runAsUser").asLong(-1))).as(id).isPositive();
                assertThat(sc.path("readOnlyRootFilesystem").asBoolean(false)).as(id).isTrue();
                assertThat(sc.path("allowPrivilegeEscalation").asBoolean(true)).as(id).isFalse();
                assertThat(sc.path("capabilities").path("drop")).as(id).extracting(JsonNode::asText).contains("ALL");
                assertThat(c.has("readinessProbe") && c.has("livenessProbe")).as("%s probes", id).isTrue();
                assertThat(c.path("resources").path("requests").has("cpu")).as(id).isTrue();
                assertThat(c.path("resources").path("requests").has("memory")).as(id).isTrue();
                assertThat(c.path("resources").path("limits").has("memory")).as(id).isTrue();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void resources_whenOverlayRendered_thenRequestsAndMemoryLimitAreSet(String overlay) {
        JsonNode r = Manifests.overlay(overlay).container().path("resources");

        assertThat(r.path("requests").has("cpu")).isTrue();
        assertThat(r.path("requests").has("memory")).isTrue();
        assertThat(r.path("limits").has("memory")).as("MaxRAMPercentage needs a memory limit").isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void topologySpread_whenOverlayRendered_thenSpreadsThePodsOverNodesAndZones(String overlay) {
        Manifests m = Manifests.overlay(overlay);

        assertThat(m.podSpec().path("topologySpreadConstraints")).extracting(t -> t.path("topologyKey").asText())
                .contains("kubernetes.io/hostname", "topology.kubernetes.io/zone");
        for (JsonNode t : m.podSpec().path("topologySpreadConstraints")) {
            assertThat(m.podLabels()).containsAllEntriesOf(Manifests.strings(t.path("labelSelector").path("matchLabels")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void networkPolicy_whenOverlayRendered_thenDevicePortsOpen_apiPortOnlyFromLabelledNamespaces_healthPortForScrapes(
            String overlay) {
        Manifests m = Manifests.overlay(overlay);
        JsonNode spec = m.get("NetworkPolicy", Manifests.DEPLOYMENT).path("spec");

        assertThat(m.podLabels()).containsAllEntriesOf(Manifests.strings(spec.path("podSelector").path("matchLabels")));
        assertThat(spec.path("policyTypes")).extracting(JsonNode::asText).containsExactly("Ingress");
        Map<String, List<JsonNode>> fromByPort = new LinkedHashMap<>();
        for (JsonNode rule : spec.path("ingress")) {
            assertThat(rule.path("ports").isEmpty()).as("every rule names its ports: %s", rule).isFalse();
            for (JsonNode port : rule.path("ports")) {
                String protocol = port.path("protocol").asText("TCP");
                assertThat(m.containerPort(port.path("port"), protocol)).as("%s/%s", port.path("port"), protocol)
                        .isPresent();
                List<JsonNode> from = new ArrayList<>();
                rule.path("from").forEach(from::add);
                fromByPort.computeIfAbsent(port.path("port").asText() + "/" + protocol, k -> new ArrayList<>())
                        .addAll(from.isEmpty() ? List.of(com.fasterxml.jackson.databind.node.MissingNode.getInstance()) : from);
            }
        }
        // Devices come from anywhere (a rule without "from").
        for (String device : List.of("device-tcp/TCP", "device-udp/UDP")) {
            assertThat(fromByPort.get(device)).as(device).anySatisfy(f -> assertThat(f.isMissingNode()).isTrue());
        }
        // The API port: namespaces with the label only, never everyone, never a bare pod selector.
        assertThat(fromByPort.get("http/TCP")).as("who reaches the API port").isNotEmpty().allSatisfy(f -> {
            assertThat(f.isMissingNode()).as("open to everyone").isFalse();
            assertThat(f.has("ipBlock")).isFalse();
            assertThat(Manifests.strings(f.path("namespaceSelector").path("matchLabels")))
                    .containsExactly(Map.entry(API_ACCESS, "allowed"));
        });
        // The health port: Prometheus' namespace (and the API's); the kubelet's probes come from the node.
        assertThat(fromByPort.get("health/TCP")).as("who reaches the health port").isNotEmpty()
                .allSatisfy(f -> assertThat(f.isMissingNode()).isFalse())
                .anySatisfy(f -> assertThat(Manifests.strings(f.path("namespaceSelector").path("matchLabels")))
                        .containsExactly(Map.entry(METRICS_ACCESS, "allowed")));
        assertThat(fromByPort.keySet()).containsExactlyInAnyOrder("device-tcp/TCP", "device-udp/UDP", "http/TCP",
                "health/TCP");
    }

    @Test
    void devNamespace_whenDevOverlayRendered_thenItsOwnPodsMayCallTheApi() {
        JsonNode namespace = Manifests.overlay("dev").get("Namespace", "teltonika-dev");

        assertThat(Manifests.strings(namespace.path("metadata").path("labels"))).containsEntry(API_ACCESS, "allowed");
    }

    // ---- the image ---------------------------------------------------------------------------

    @Test
    void dockerfile_whenRead_thenExposesTheContractPortsRunsAsTheManifestsUserAndUsesAnExecEntrypoint() throws Exception {
        String dockerfile = Files.readString(Manifests.deployDir().resolve("Dockerfile"));
        long runAsUser = Manifests.overlay("prod").podSpec().path("securityContext").path("runAsUser").asLong();

        assertThat(dockerfile).containsPattern("(?m)^EXPOSE .*\\b5027/tcp\\b")
                .containsPattern("(?m)^EXPOSE .*\\b5027/udp\\b")
                .containsPattern("(?m)^EXPOSE .*\\b8080\\b")
                .containsPattern("(?m)^EXPOSE .*\\b8081\\b");
        assertThat(dockerfile).containsPattern("(?m)^USER " + runAsUser + "(:\\d+)?\\s*$");
        assertThat(dockerfile).containsPattern("(?m)^ENTRYPOINT \\[\"java\",")
                .contains("-XX:+ExitOnOutOfMemoryError")
                .containsPattern("(?m)^ENV JDK_JAVA_OPTIONS=\"-XX:MaxRAMPercentage=\\d+ -XX:MaxDirectMemorySize=")
                .contains("ingestion-server.jar");
        assertThat(dockerfile).contains("mvn -B -ntp -DskipTests -pl ingestion-server -am package")
                .as("the image runs the slim jar: no redis-launcher, no embedded Redis")
                .contains("cp ingestion-server/target/ingestion-server-slim.jar /ingestion-server.jar");
        assertThat(dockerfile).as("the class archive: trained by the warm-up alone, mapped by the entrypoint")
                .contains("-XX:ArchiveClassesAtExit=/app/ingestion-server.jsa -jar /app/ingestion-server.jar --warm-up-only")
                .contains("-XX:AOTCacheOutput=/app/ingestion-server.jsa -jar /app/ingestion-server.jar --warm-up-only")
                .containsPattern("(?m)^ENTRYPOINT \\[\"java\", \"-XX:SharedArchiveFile=/app/ingestion-server.jsa\", \"-Xshare:auto\"");
    }

    private static JsonNode env(JsonNode container, String name) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        container.path("env").forEach(e -> byName.put(e.path("name").asText(), e));
        assertThat(byName).as("container env").containsKey(name);
        return byName.get(name);
    }
}
