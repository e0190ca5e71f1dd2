package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dev overlay's start scripts (redis-scripts.yaml), run with sh as the pods run them, with
 * stand-ins for redis-cli (answers per host:port from files), redis-server (records its
 * arguments) and the commands that would wait on the network. What is checked is the decision:
 * which primary a restarting Redis pod or sentinel follows, given who answers.
 */
class RedisStartScriptsTest {

    private static final Manifests DEV = Manifests.overlay("dev");

    @TempDir
    Path root;
    Path stubs;

    @BeforeEach
    void stubs() throws IOException {
        assumeTrue(Executables.onPath("sh").isPresent() && Executables.onPath("sha1sum").isPresent(),
                "sh and sha1sum on the PATH");
        stubs = Files.createDirectories(root.resolve("stubs"));
        Files.createDirectories(stubs.resolve("answers"));
        // redis-cli [-h host] [-p port] [--raw] command...: the answer file of host:port, else "cannot connect".
        stub("redis-cli", """
                host=127.0.0.1 port=6379
                while [ $# -gt 0 ]; do
                    case "$1" in
                        -h) host=$2; shift 2 ;;
                        -p) port=$2; shift 2 ;;
                        --raw) shift ;;
                        *) break ;;
                    esac
                done
                echo "$host:$port $*" >> "$STUBS/calls"
                if [ -f "$STUBS/answers/$host:$port" ]; then
                    cat "$STUBS/answers/$host:$port"
                else
                    echo "Could not connect to Redis at $host:$port: Connection refused" >&2
                    exit 1
                fi
                """);
        stub("redis-server", "printf '%s\\n' \"$@\" > \"$STUBS/redis-server.args\"\n");
        stub("timeout", "shift\nexec \"$@\"\n");
        stub("getent", "exit 0\n");
    }

    // ---- Redis pods -----------------------------------------------------------------------------

    @Test
    void startRedis_whenNobodyAnswersOnPodZero_thenStartsAsThePrimaryAnnouncingItsName() throws Exception {
        List<String> conf = startRedis("redis-0");

        assertThat(conf).contains("replica-announce-ip redis-0.redis").noneMatch(l -> l.startsWith("replicaof"));
        assertThat(conf).contains("appendonly yes", "min-replicas-to-write 1");
        assertThat(conf).as("the Secret's password for clients, and for the replica towards its primary")
                .contains("requirepass \"teltonika-ingestion/redis-password\"",
                        "masterauth \"teltonika-ingestion/redis-password\"");
    }

    @Test
    void startRedis_whenNobodyAnswersOnPodOne_thenStartsAsAReplicaOfPodZero() throws Exception {
        assertThat(startRedis("redis-1")).contains("replica-announce-ip redis-1.redis", "replicaof redis-0.redis 6379");
    }

    @Test
    void startRedis_whenASentinelNamesPodOneAfterAFailover_thenPodZeroStartsAsItsReplica() throws Exception {
        answer("redis-sentinel-1.redis-sentinel:26379", "redis-1.redis\n6379\n");

        assertThat(startRedis("redis-0")).contains("replicaof redis-1.redis 6379");
        assertThat(calls()).startsWith("redis-sentinel-0.redis-sentinel:26379 SENTINEL get-master-addr-by-name mymaster");
    }

    @Test
    void startRedis_whenTheSentinelsStillNameThisPod_thenStaysThePrimary() throws Exception {
        answer("redis-sentinel-0.redis-sentinel:26379", "redis-0.redis\n6379\n");
        answer("redis-1.redis:6379", "slave\nredis-0.redis\n6379\nconnect\n-1\n");

        assertThat(startRedis("redis-0")).noneMatch(l -> l.startsWith("replicaof"));
    }

    @Test
    void startRedis_whenNoSentinelAnswersButPodOneSaysItIsMaster_thenPodZeroStartsAsItsReplica() throws Exception {
        answer("redis-1.redis:6379", "master\n1234\n");

        assertThat(startRedis("redis-0")).contains("replicaof redis-1.redis 6379");
        assertThat(calls()).as("a pod never asks itself").noneMatch(c -> c.startsWith("redis-0.redis:"));
    }

    @Test
    void startRedis_whenASentinelAnswersWithAnError_thenAsksTheNextOne() throws Exception {
        answer("redis-sentinel-0.redis-sentinel:26379", "ERR No such master with that name\n");
        answer("redis-sentinel-2.redis-sentinel:26379", "redis-1.redis\n6379\n");

        assertThat(startRedis("redis-0")).contains("replicaof redis-1.redis 6379");
    }

    @Test
    void startRedis_whenThePodIsNotInTheTopology_thenFailsWithoutStartingRedis() throws Exception {
        LocalContainer.Result r = container("redis", "redis").run("redis-7", stubs, Map.of("STUBS", stubs.toString()));

        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stderr()).contains("redis-7 is not in REDIS_HOSTS");
        assertThat(stubs.resolve("redis-server.args")).doesNotExist();
    }

    // ---- sentinels ------------------------------------------------------------------------------

    @Test
    void startSentinel_whenAPeerNamesPodOne_thenMonitorsPodOneAndAnnouncesItsOwnName() throws Exception {
        answer("redis-sentinel-0.redis-sentinel:26379", "redis-1.redis\n6379\n");

        List<String> conf = startSentinel("redis-sentinel-1");

        assertThat(conf).contains("sentinel monitor mymaster redis-1.redis 6379 2",
                "sentinel announce-ip redis-sentinel-1.redis-sentinel", "sentinel resolve-hostnames yes",
                "requirepass \"teltonika-ingestion/redis-password\"",
                "sentinel auth-pass mymaster \"teltonika-ingestion/redis-password\"");
        assertThat(calls()).as("a sentinel never asks itself").noneMatch(c -> c.startsWith("redis-sentinel-1."));
        assertThat(Files.readAllLines(stubs.resolve("redis-server.args"))).last().isEqualTo("--sentinel");
    }

    @Test
    void startSentinel_whenNobodyAnswers_thenMonitorsTheFirstStartPrimary() throws Exception {
        assertThat(startSentinel("redis-sentinel-0")).contains("sentinel monitor mymaster redis-0.redis 6379 2")
                .containsSubsequence("sentinel resolve-hostnames yes", "sentinel monitor mymaster redis-0.redis 6379 2",
                        "sentinel down-after-milliseconds mymaster 5000");
    }

    @Test
    void startSentinel_whenRestarted_thenKeepsItsIdAndEachSentinelHasItsOwn() throws Exception {
        String first = myid(startSentinel("redis-sentinel-0"));
        String again = myid(startSentinel("redis-sentinel-0"));
        String other = myid(startSentinel("redis-sentinel-1"));

        assertThat(first).matches("[0-9a-f]{40}").isEqualTo(again).isNotEqualTo(other);
    }

    // ---- helpers --------------------------------------------------------------------------------

    private List<String> startRedis(String pod) throws Exception {
        return start("redis", "redis", pod);
    }

    private List<String> startSentinel(String pod) throws Exception {
        return start("redis-sentinel", "sentinel", pod);
    }

    /** Runs the container's start script; the config file it wrote, one line per element. */
    private List<String> start(String statefulSet, String containerName, String pod) throws Exception {
        LocalContainer c = container(statefulSet, containerName);
        LocalContainer.Result r = c.run(pod, stubs, Map.of("STUBS", stubs.toString()));
        assertThat(r.exitCode()).as("exit code; stderr:\n%s", r.stderr()).isZero();

        String configFile = Manifests.containerOf(DEV.get("StatefulSet", statefulSet), containerName)
                .path("env").findParents("name").stream()
                .filter(e -> "CONFIG_FILE".equals(e.path("name").asText()))
                .findFirst().orElseThrow().path("value").asText();
        assertThat(Files.readAllLines(stubs.resolve("redis-server.args"))).first().isEqualTo(c.path(configFile).toString());
        return Files.readAllLines(c.path(configFile));
    }

    private LocalContainer container(String statefulSet, String containerName) {
        return new LocalContainer(DEV, DEV.get("StatefulSet", statefulSet), containerName, root.resolve("pod"));
    }

    private static String myid(List<String> conf) {
        return conf.stream().filter(l -> l.startsWith("sentinel myid ")).findFirst().orElseThrow().substring(14);
    }

    private void answer(String hostPort, String reply) throws IOException {
        Files.writeString(stubs.resolve("answers").resolve(hostPort), reply);
    }

    private List<String> calls() throws IOException {
        Path calls = stubs.resolve("calls");
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    }

    private void stub(String name, String body) throws IOException {
        Path p = stubs.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
