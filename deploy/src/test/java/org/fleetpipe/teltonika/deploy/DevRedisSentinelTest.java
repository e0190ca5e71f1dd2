package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dev overlay's Redis: a primary and a replica watched by three sentinels. The names the
 * servers, the sentinels and the Redis pods use for each other must agree, and the durability
 * settings must be there; these checks read the YAML, so a wrong name fails here rather than as a
 * sentinel that never finds its primary.
 */
class DevRedisSentinelTest {

    private static final Manifests DEV = Manifests.overlay("dev");
    private static final ObjectNode REDIS = DEV.get("StatefulSet", "redis");
    private static final ObjectNode SENTINELS = DEV.get("StatefulSet", "redis-sentinel");
    private static final Map<String, String> TOPOLOGY = DEV.configMapData("redis-topology");
    private static final RedisConf REDIS_CONF = new RedisConf(DEV.configMapData("redis-config").get("redis.conf"));
    private static final RedisConf SENTINEL_CONF = new RedisConf(DEV.configMapData("redis-config").get("sentinel.conf"));

    @Test
    void devSecretRedisUrl_whenParsed_thenListsEverySentinelPodOnItsPortAndTheMonitoredMasterName() throws Exception {
        String url = CreateSecretScript.read().value("redis-url").replace("$password", "x");

        SentinelUrl parsed = SentinelUrl.parse(url);

        assertThat(parsed.sentinels).extracting(SentinelUrl.Host::host)
                .containsExactlyElementsOf(Manifests.podHostNames(SENTINELS));
        assertThat(parsed.sentinels).extracting(SentinelUrl.Host::port).containsOnly(containerPort(SENTINELS, "sentinel"));
        assertThat(parsed.master).isEqualTo(monitor().get(2)).isEqualTo(TOPOLOGY.get("MASTER_NAME"));
    }

    @Test
    void topology_whenRendered_thenNamesEveryRedisAndSentinelPodByItsHeadlessServiceDnsName() {
        assertThat(words(TOPOLOGY.get("REDIS_HOSTS"))).containsExactlyElementsOf(Manifests.podHostNames(REDIS));
        assertThat(words(TOPOLOGY.get("SENTINEL_HOSTS"))).containsExactlyElementsOf(Manifests.podHostNames(SENTINELS));
        for (ObjectNode sts : List.of(REDIS, SENTINELS)) {
            JsonNode from = containerOf(sts).path("envFrom");
            assertThat(from).extracting(f -> f.path("configMapRef").path("name").asText()).contains("redis-topology");
            assertThat(env(containerOf(sts), "POD_NAME").path("valueFrom").path("fieldRef").path("fieldPath").asText())
                    .isEqualTo("metadata.name");
        }
    }

    @Test
    void redisPods_whenRendered_thenAPrimaryAndAReplicaServeOnTheConfiguredPort() {
        assertThat(REDIS.path("spec").path("replicas").asInt()).isEqualTo(2);
        assertThat(REDIS_CONF.value("port")).isEqualTo(String.valueOf(containerPort(REDIS, "redis")));
        assertThat(REDIS_CONF.line("replicaof")).as("the role is chosen at start, never fixed in the template").isEmpty();
    }

    @Test
    void redisConf_whenRead_thenHasAofEverysecAndRefusesWritesWithoutAReplica() {
        int replicas = REDIS.path("spec").path("replicas").asInt() - 1;

        assertThat(REDIS_CONF.value("appendonly")).isEqualTo("yes");
        assertThat(REDIS_CONF.value("appendfsync")).isEqualTo("everysec");
        // The AOF must be on the volume, not in the container.
        assertThat(REDIS_CONF.value("dir")).isEqualTo(mountPath(containerOf(REDIS), "data"));
        int minReplicas = Integer.parseInt(REDIS_CONF.value("min-replicas-to-write"));
        assertThat(minReplicas).as("min-replicas-to-write: at least one, and no more than there are").isBetween(1, replicas);
        assertThat(Integer.parseInt(REDIS_CONF.value("min-replicas-max-lag"))).isBetween(1, 60);
    }

    @Test
    void redisConf_whenRead_thenNeverEvicts_andStopsWritingBelowThePodMemoryLimit() {
        String limit = containerOf(REDIS).path("resources").path("limits").path("memory").asText();

        assertThat(REDIS_CONF.value("maxmemory-policy")).isEqualTo("noeviction");
        assertThat(limit).endsWith("Mi");
        // Redis's "mb" is MiB, like Kubernetes' "Mi"; a fifth of the container left for forks and buffers.
        long maxmemory = Long.parseLong(REDIS_CONF.value("maxmemory").replace("mb", ""));
        assertThat(maxmemory).as("maxmemory against the container limit %s", limit)
                .isLessThanOrEqualTo(Long.parseLong(limit.replace("Mi", "")) * 8 / 10);
    }

    @Test
    void ackReplicas_whenDevRendered_thenNoMoreThanTheReplicasRedisHas() {
        int replicas = REDIS.path("spec").path("replicas").asInt() - 1;

        // More than that and no WAIT is ever satisfied: nothing would be acknowledged.
        assertThat(Integer.parseInt(DEV.literalEnvironment().get("ACK_REPLICAS"))).isBetween(1, replicas);
    }

    @Test
    void sentinelMonitor_whenTemplateRead_thenWatchesTheFirstRedisPodWithAMajorityQuorum() {
        List<String> monitor = monitor();
        int sentinels = SENTINELS.path("spec").path("replicas").asInt();

        assertThat(sentinels).as("an odd number, at least 3").isGreaterThanOrEqualTo(3).isOdd();
        assertThat(monitor).hasSize(6);
        assertThat(monitor.get(3)).as("first-start primary").isEqualTo(words(TOPOLOGY.get("REDIS_HOSTS")).get(0));
        assertThat(Integer.parseInt(monitor.get(4))).isEqualTo(containerPort(REDIS, "redis"));
        // At most the sentinels there are (else no failover ever), more than half (else one cut-off
        // sentinel and a friend could declare a healthy primary down).
        assertThat(Integer.parseInt(monitor.get(5))).as("quorum").isLessThanOrEqualTo(sentinels).isGreaterThan(sentinels / 2);
    }

    @Test
    void sentinelConf_whenRead_thenResolvesHostNamesBeforeMonitorAndConfiguresTheMasterAfterIt() {
        int monitor = SENTINEL_CONF.indexOf("sentinel", "monitor");
        String master = monitor().get(2);

        assertThat(SENTINEL_CONF.value("port")).isEqualTo(String.valueOf(containerPort(SENTINELS, "sentinel")));
        for (String option : List.of("resolve-hostnames", "announce-hostnames")) {
            assertThat(SENTINEL_CONF.value("sentinel", option)).as(option).isEqualTo("yes");
            assertThat(SENTINEL_CONF.indexOf("sentinel", option)).as("%s before monitor", option).isLessThan(monitor);
        }
        for (String option : List.of("down-after-milliseconds", "failover-timeout", "parallel-syncs")) {
            assertThat(SENTINEL_CONF.indexOf("sentinel", option, master)).as("%s after monitor", option).isGreaterThan(monitor);
        }
        long downAfter = Long.parseLong(SENTINEL_CONF.value("sentinel", "down-after-milliseconds", master));
        long failoverTimeout = Long.parseLong(SENTINEL_CONF.value("sentinel", "failover-timeout", master));
        assertThat(downAfter).isBetween(1_000L, 30_000L);
        assertThat(failoverTimeout).isGreaterThan(downAfter);
        // Its config file is rewritten by sentinel: it must live on a writable volume.
        assertThat(SENTINEL_CONF.value("dir")).isEqualTo(mountPath(containerOf(SENTINELS), "run"));
    }

    @Test
    void startScripts_whenRendered_thenRunFromTheScriptsMountWithTheirTemplateAndAWritableConfigFile() {
        Map<String, String> scripts = DEV.configMapData("redis-scripts");
        assertThat(scripts).containsKey("find-primary.sh");
        for (ObjectNode sts : List.of(REDIS, SENTINELS)) {
            JsonNode c = containerOf(sts);
            List<String> command = strings(c.path("command"));
            assertThat(command).hasSize(2).startsWith("sh");
            String scriptsDir = mountPath(c, "scripts");
            assertThat(command.get(1)).startsWith(scriptsDir + "/");
            assertThat(scripts).containsKey(command.get(1).substring(scriptsDir.length() + 1));

            String template = env(c, "CONFIG_TEMPLATE").path("value").asText();
            String configDir = mountPath(c, "config");
            assertThat(template).startsWith(configDir + "/");
            String key = template.substring(configDir.length() + 1);
            assertThat(Manifests.podSpecOf(sts).path("volumes")).anySatisfy(v -> {
                assertThat(v.path("configMap").path("name").asText()).isEqualTo("redis-config");
                assertThat(v.path("configMap").path("items")).extracting(i -> i.path("path").asText()).contains(key);
            });
            assertThat(env(c, "CONFIG_FILE").path("value").asText()).startsWith(mountPath(c, "run") + "/");
            assertThat(Manifests.podSpecOf(sts).path("volumes")).anySatisfy(v -> {
                assertThat(v.path("name").asText()).isEqualTo("run");
                assertThat(v.has("emptyDir")).isTrue();
            });
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** {@code sentinel monitor <master> <host> <port> <quorum>}. */
    private static List<String> monitor() {
        return SENTINEL_CONF.line("sentinel", "monitor").orElseThrow(() -> new AssertionError("no sentinel monitor line"));
    }

    private static JsonNode containerOf(ObjectNode sts) {
        JsonNode containers = Manifests.podSpecOf(sts).path("containers");
        assertThat(containers).as(sts.path("metadata").path("name").asText()).hasSize(1);
        return containers.get(0);
    }

    private static int containerPort(ObjectNode sts, String name) {
        for (JsonNode p : containerOf(sts).path("ports")) {
            if (name.equals(p.path("name").asText())) {
                return p.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no container port " + name);
    }

    private static String mountPath(JsonNode container, String volume) {
        for (JsonNode m : container.path("volumeMounts")) {
            if (volume.equals(m.path("name").asText())) {
                return m.path("mountPath").asText();
            }
        }
        throw new AssertionError("no mount of volume " + volume);
    }

    private static JsonNode env(JsonNode container, String name) {
        for (JsonNode e : container.path("env")) {
            if (name.equals(e.path("name").asText())) {
                return e;
            }
        }
        throw new AssertionError("no env " + name);
    }

    private static List<String> strings(JsonNode list) {
        return java.util.stream.StreamSupport.stream(list.spliterator(), false).map(JsonNode::asText).toList();
    }

    private static List<String> words(String s) {
        return Arrays.asList(s.trim().split("\\s+"));
    }
}
