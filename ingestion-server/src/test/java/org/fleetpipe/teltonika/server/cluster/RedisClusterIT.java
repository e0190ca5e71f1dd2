package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
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
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.PartitionRule;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.cluster.ClusterNode;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two servers on a real Redis Cluster (3 primaries, 3 replicas, started by the fixture) with the
 * telemetry in 8 partitions: records land in their device's partition, spread over the primaries,
 * in order and once; a command posted to one server reaches the device on the other; a server
 * process killed with SIGKILL has exactly its devices evicted by the survivor's janitor.
 */
@WithRedisCluster
class RedisClusterIT {

    private static final int PARTITIONS = 8;
    private static final String NAMESPACE = "{fleet}:";
    private static final String TOKEN = "cluster-token-0123456789abcdef0123456789abcdef";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final List<IngestionServer> servers = new ArrayList<>();
    private final List<DeviceClient> devices = new ArrayList<>();
    private LocalRedisCluster cluster;
    private RedisClusterClient client;
    private StatefulRedisClusterConnection<String, String> connection;
    private RedisAdvancedClusterCommands<String, String> redis;

    @BeforeEach
    void connect(LocalRedisCluster cluster) {
        this.cluster = cluster;
        client = RedisClusterClient.create(cluster.redisUris());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterEach
    void close() throws Exception {
        for (DeviceClient d : devices) {
            d.close();
        }
        for (IngestionServer s : servers) {
            s.close();
        }
        connection.close();
        client.shutdown();
    }

    private IngestionServer server(String prefix, Map<String, Object> extra) throws Exception {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", cluster.uri(), "redis.namespace", NAMESPACE,
                "telemetry.partitions", PARTITIONS, "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0,
                "bind-address", "127.0.0.1", "api-token", TOKEN, "instance-id-prefix", prefix));
        settings.put("redis.command-timeout", "5s");
        settings.putAll(extra);
        IngestionServer server = new IngestionServer(SettingsLoader.load(settings));
        servers.add(server);
        return server.start();
    }

    private DeviceClient device(IngestionServer on, String imei) throws Exception {
        DeviceClient device = DeviceClient.connect(on.tcpAddress().getPort());
        devices.add(device);
        assertThat(device.login(imei)).isEqualTo(1);
        return device;
    }


    private static String stream(int partition) {
        return "fleet:telemetry:{" + partition + "}";
    }

    @Test
    void devicesOnTwoServersWriteToTheirPartitions_spreadOverThePrimaries_inOrderAndOnce() throws Exception {
        IngestionServer a = server("a", Map.of());
        IngestionServer b = server("b", Map.of());
        RandomAvl random = new RandomAvl(51L);
        Map<String, List<Long>> sent = new HashMap<>();
        for (int d = 0; d < 16; d++) {
            String imei = TestImeis.numbered(9_000 + d);
            DeviceClient device = device(d % 2 == 0 ? a : b, imei);
            List<Long> times = sent.computeIfAbsent(imei, k -> new ArrayList<>());
            for (int p = 0; p < 4; p++) {
                AvlPacket packet = random.packet(CodecId.CODEC_8E, 4);
                byte[] frame = Frames.avl(packet);
                assertThat(device.sendAndReadAck(frame)).isEqualTo(packet.size());
                packet.records().forEach(r -> times.add(r.timestamp()));
                if (p == 2) {
                    // A resend after a lost ACK: the dedup sets, in the partition's slot, keep it out.
                    assertThat(device.sendAndReadAck(frame)).isEqualTo(packet.size());
                }
            }
        }

        assertThat(redis.get(NAMESPACE + "telemetry:partitions")).isEqualTo(Integer.toString(PARTITIONS));
        Map<String, List<Long>> stored = new HashMap<>();
        Set<ClusterNode> primaries = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<StreamMessage<String, String>> entries = redis.xrange(stream(p), Range.create("-", "+"));
            if (!entries.isEmpty()) {
                primaries.add(cluster.primaryAtStartFor(SlotHash.getSlot(stream(p))));
            }
            for (StreamMessage<String, String> entry : entries) {
                String imei = entry.getBody().get("imei");
                assertThat(PartitionRule.partitionOf(imei, PARTITIONS)).as("partition of %s", imei).isEqualTo(p);
                stored.computeIfAbsent(imei, k -> new ArrayList<>()).add(Long.parseLong(entry.getBody().get("ts")));
            }
        }
        assertThat(stored).as("every record once, each device's in the order sent").isEqualTo(sent);
        assertThat(primaries).as("the partitions spread over the cluster").hasSizeGreaterThan(1);
        String imei = TestImeis.numbered(9_000);
        assertThat(redis.hget(NAMESPACE + "connections:registry", imei)).startsWith("a");
        // The login's info hash, refreshed apart from the records (it lives in the namespace's slot).
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(redis.hget(NAMESPACE + "device:info:" + imei, "last_record_at")).isNotNull());
        // Each partition measured on its own node, the sums on the gauge.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                a.metrics().registry().get("teltonika.telemetry.stream.length").gauge().value())
                .isEqualTo(sent.values().stream().mapToInt(List::size).sum()));
    }

    @Test
    void queueHealth_computesOnTheCluster_withACommandInFlight_andAnOrphan() throws Exception {
        IngestionServer a = server("a", Map.of("ops.queue-health.interval", "200ms", "commands.reply-timeout", "60s"));
        String imei = TestImeis.WIKI;
        DeviceClient device = device(a, imei);
        // A queued command in no queue: the orphan walk's SCAN must run on the namespace's node to find it.
        redis.hset(NAMESPACE + "command:orphan-1", Map.of("id", "orphan-1", "imei", TestImeis.OTHER, "codec", "12",
                "command", "getinfo", "status", "queued", "history", "[]",
                "expires_at", Long.toString(System.currentTimeMillis() + 3_600_000)));
        HttpResponse<String> posted = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + a.httpAddress().getPort() + "/api/v1/devices/" + imei + "/commands"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"getinfo\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(posted.statusCode()).isEqualTo(202);
        assertThat(device.readFrame()).as("sent, and never answered").isNotEmpty();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode inFlight = queue(a, "inflight-commands");
            assertThat(inFlight.get("size").asLong()).isEqualTo(1);
            assertThat(inFlight.get("oldest_age_ms").asLong()).isPositive();
            JsonNode pending = queue(a, "pending-commands");
            assertThat(pending.get("orphans").asLong()).isEqualTo(1);
            assertThat(pending.get("orphan_walk_complete").asBoolean()).isTrue();
        });
    }

    private JsonNode queue(IngestionServer on, String name) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + on.httpAddress().getPort() + "/api/v1/health/queues"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        for (JsonNode q : json.readTree(answer.body()).get("queues")) {
            if (q.get("queue").asText().equals(name)) {
                return q;
            }
        }
        throw new AssertionError("no queue " + name + " in " + answer.body());
    }

    @Test
    void aCommandPostedToOneServerReachesTheDeviceOnTheOther() throws Exception {
        IngestionServer a = server("a", Map.of());
        IngestionServer b = server("b", Map.of());
        String imei = TestImeis.WIKI;
        DeviceClient device = device(a, imei);
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
            try {
                byte[] frame = device.readFrame();
                device.send(Frames.command(CommandFrame.codec12Response("FW:03.27.07 Hw:FMB920")));
                return frame;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + b.httpAddress().getPort() + "/api/v1/devices/" + imei + "/commands"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"getinfo\",\"wait_ms\":15000}")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(received.get()).isNotEmpty();
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json.readTree(response.body());
        assertThat(body.get("status").asText()).isEqualTo("replied");
        assertThat(body.get("reply").asText()).isEqualTo("FW:03.27.07 Hw:FMB920");
    }

    @Test
    void aServerProcessKilledWithSigkill_theSurvivorsJanitorEvictsExactlyItsDevices() throws Exception {
        List<ServerProcess> processes = new ArrayList<>();
        try {
            for (String id : List.of("k1", "k2")) {
                processes.add(ServerProcess.start(Map.of("REDIS_URL", cluster.uri(), "REDIS_NAMESPACE", NAMESPACE,
                        "TELEMETRY_PARTITIONS", Integer.toString(PARTITIONS), "INSTANCE_ID", id,
                        "HEARTBEAT_TTL_MS", "3000", "HEARTBEAT_INTERVAL_MS", "1000", "JANITOR_INTERVAL_MS", "1000",
                        "API_TOKEN", TOKEN)));
            }
            for (int s = 0; s < processes.size(); s++) {
                for (int d = 0; d < 4; d++) {
                    DeviceClient device = DeviceClient.connect(processes.get(s).tcpPort);
                    devices.add(device);
                    assertThat(device.login(TestImeis.numbered(500 + 10 * s + d))).isEqualTo(1);
                }
            }
            String registry = NAMESPACE + "connections:registry";
            assertThat(redis.hlen(registry)).isEqualTo(8);
            String victim = redis.hget(registry, TestImeis.numbered(500));
            Map<String, String> before = redis.hgetall(registry);

            processes.get(0).kill();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !redis.hvals(registry).contains(victim));
            Map<String, String> after = redis.hgetall(registry);
            before.forEach((imei, owner) -> {
                if (!owner.equals(victim)) {
                    assertThat(after).containsEntry(imei, owner);
                }
            });
            assertThat(after).hasSize(4);
        } finally {
            for (ServerProcess p : processes) {
                p.close();
            }
        }
    }
}
