package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.registry.HeartbeatRenewer;
import org.fleetpipe.teltonika.registry.InstanceConflictException;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.InProcessServers;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Instances in one JVM sharing one real Redis: ownership, takeover, stop, remote shutdown, expiry,
 * and a lost heartbeat that is no shutdown (a deleted key, a restore of an older snapshot).
 */
@WithRedis
class InstanceLifecycleIT {

    private static final String IMEI = "352093081452251";
    private static final String OTHER_IMEI = TestImeis.OTHER;
    private static final String TOKEN = "lifecycle-token-0123456789abcdef0123456789abcdef";
    private static final Duration TTL = Duration.ofMillis(1500);

    private RedisFixture redis;
    private InProcessServers cluster;
    private RedisCommands<String, String> commands;
    private final ListAppender<ILoggingEvent> heartbeatLog = new ListAppender<>();
    private final Logger heartbeatLogger = (Logger) LoggerFactory.getLogger(HeartbeatRenewer.class);

    @BeforeEach
    void connect(RedisFixture redis) {
        heartbeatLog.start();
        heartbeatLogger.addAppender(heartbeatLog);
        this.redis = redis;
        cluster = new InProcessServers(redis, Map.of("heartbeat.ttl", TTL.toMillis() + "ms", "heartbeat.interval", "300ms",
                "redis.command-timeout", "1s", "api-token", TOKEN));
        commands = cluster.redis();
    }

    @AfterEach
    void tearDown() throws Exception {
        cluster.close();
        heartbeatLogger.detachAppender(heartbeatLog);
    }

    /** The lines the heartbeat logged about {@code id} that start with {@code start}. */
    private List<String> heartbeatLines(String start, String id) {
        return heartbeatLog.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(line -> line.startsWith(start) && line.contains("instance=" + id + " ")).toList();
    }

    private IngestionServer server(String prefix) throws InterruptedException {
        return server(prefix, Map.of());
    }

    private IngestionServer server(String prefix, Map<String, Object> extra) throws InterruptedException {
        Map<String, Object> settings = new HashMap<>(extra);
        settings.put("instance-id-prefix", prefix);
        return cluster.start(settings);
    }

    private DeviceClient loggedIn(IngestionServer server) throws Exception {
        DeviceClient device = cluster.connect(server);
        assertThat(device.login(IMEI)).isEqualTo(1);
        return device;
    }

    @Test
    void login_claimsTheImei_andDisconnectReleasesIt() throws Exception {
        IngestionServer a = server("a");
        DeviceClient device = loggedIn(a);

        assertThat(commands.hget("connections:registry", IMEI)).isEqualTo(a.instanceId());
        assertThat(commands.hget("device:info:" + IMEI, "instance")).isEqualTo(a.instanceId());

        device.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> commands.hget("connections:registry", IMEI) == null);
    }

    @Test
    void loginOnSecondInstance_takesTheDeviceOver_andTheFirstClosesItsStaleConnection() throws Exception {
        IngestionServer a = server("a");
        IngestionServer c = server("c");
        DeviceClient first = loggedIn(a);

        DeviceClient second = loggedIn(c);

        assertThat(commands.hget("connections:registry", IMEI)).isEqualTo(c.instanceId());
        await().atMost(Duration.ofSeconds(10)).until(first::closedByServer);
        assertThat(second.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
        // A's late release must not remove C's entry.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> c.instanceId().equals(commands.hget("connections:registry", IMEI)));
    }

    @Test
    void secondLoginOnTheSameInstance_closesTheOlderConnection_andKeepsTheEntry() throws Exception {
        IngestionServer a = server("a");
        DeviceClient first = loggedIn(a);

        DeviceClient second = loggedIn(a);

        await().atMost(Duration.ofSeconds(10)).until(first::closedByServer);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> a.instanceId().equals(commands.hget("connections:registry", IMEI)));
        assertThat(second.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
    }

    @Test
    void start_whenTheNextIdsHeartbeatExists_refusesWithAClearMessage() {
        commands.set("instance:seq", "41");
        commands.hset("instance:heartbeat:x-42", "host", "someone-else");

        assertThatThrownBy(() -> server("x"))
                .isInstanceOf(InstanceConflictException.class)
                .hasMessageContaining("instance:heartbeat:x-42");
    }

    @Test
    void cleanStop_leavesNoKeyOfTheInstance() throws Exception {
        IngestionServer a = server("a");
        loggedIn(a);
        String id = a.instanceId();
        assertThat(commands.exists("instance:heartbeat:" + id)).isEqualTo(1);

        a.close();

        assertThat(commands.exists("instance:heartbeat:" + id)).isZero();
        assertThat(commands.zscore("instance:ids", id)).isNull();
        assertThat(commands.hget("connections:registry", IMEI)).isNull();
    }

    @Test
    void heartbeatDeletedWhileRedisAnswers_isAnExpiry_theInstanceKeepsServingUnderANewId() throws Exception {
        IngestionServer a = server("a");
        AtomicBoolean stopAsked = neverStopped(a);
        DeviceClient device = loggedIn(a);
        String oldId = a.instanceId();

        // What an eviction under memory pressure (or a hand-typed DEL) looks like to the instance.
        commands.del("instance:heartbeat:" + oldId);

        keepsServingUnderANewId(a, oldId, device, IMEI);
        assertThat(stopAsked).isFalse();
    }

    @Test
    void restoreOfAnOlderSnapshot_whileServersRun_everyServerKeepsItsDevicesUnderANewId_andNoneStops()
            throws Exception {
        IngestionServer b = server("b");
        AtomicBoolean bStopAsked = neverStopped(b);
        DeviceClient onB = cluster.connect(b);
        assertThat(onB.login(OTHER_IMEI)).isEqualTo(1);
        // The snapshot knows b and its device, and instance:seq as it was before a started.
        Map<String, Dumped> snapshot = snapshot();
        IngestionServer a = server("a");
        AtomicBoolean aStopAsked = neverStopped(a);
        DeviceClient onA = loggedIn(a);
        String aId = a.instanceId();
        String bId = b.instanceId();
        // b renews after the snapshot, so the snapshot's heartbeat holds a value b no longer counts as its own.
        String snapshotRenewed = commands.hget("instance:heartbeat:" + bId, "renewed");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !snapshotRenewed.equals(commands.hget("instance:heartbeat:" + bId, "renewed")));

        restore(snapshot);

        keepsServingUnderANewId(a, aId, onA, IMEI);
        keepsServingUnderANewId(b, bId, onB, OTHER_IMEI);
        assertThat(a.instanceId()).as("an id handed out again by the restored counter is not taken back")
                .isNotEqualTo(aId);
        assertThat(aStopAsked).isFalse();
        assertThat(bStopAsked).isFalse();
    }

    @Test
    void shutdownRequestedOnAnotherInstancesApi_drainsTheInstance_andLeavesNoKeyOfIt() throws Exception {
        IngestionServer a = server("a");
        IngestionServer b = server("b");
        CountDownLatch asked = new CountDownLatch(1);
        a.onRemoteShutdown(() -> {
            asked.countDown();
            try {
                a.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        DeviceClient device = loggedIn(a);
        String id = a.instanceId();

        assertThat(postShutdown(b, "nobody-1").statusCode()).isEqualTo(404);
        assertThat(postShutdown(b, "a%20b").statusCode()).isEqualTo(400);
        HttpResponse<String> accepted = postShutdown(b, id);

        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(accepted.body()).contains("\"stopping\"");
        assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(device::closedByServer);
        await().atMost(Duration.ofSeconds(10)).until(() -> commands.hget("connections:registry", IMEI) == null);
        assertThat(commands.exists("instance:heartbeat:" + id, "instance:shutdown:" + id)).isZero();
        assertThat(commands.zscore("instance:ids", id)).isNull();
        assertThat(commands.exists("instance:heartbeat:" + b.instanceId())).isEqualTo(1);
        assertThat(heartbeatLines("retired:", id)).as("the stop log says what the clean stop removed")
                .containsExactly("retired: instance=" + id + " heartbeat=1 ids=1 marker=1");
    }

    @Test
    void heartbeatDeleted_whenDeleteMeansShutdown_drainsTheInstance_andLeavesNoKeyOfIt() throws Exception {
        IngestionServer a = server("a", Map.of("heartbeat.delete-means", "shutdown"));
        CountDownLatch asked = new CountDownLatch(1);
        a.onRemoteShutdown(() -> {
            asked.countDown();
            try {
                a.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        DeviceClient device = loggedIn(a);
        String id = a.instanceId();

        // The operations design's remote shutdown.
        commands.del("instance:heartbeat:" + id);

        assertThat(asked.await(15, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(device::closedByServer);
        await().atMost(Duration.ofSeconds(10)).until(() -> commands.hget("connections:registry", IMEI) == null);
        assertThat(a.instanceId()).as("no new id: it stopped instead").isEqualTo(id);
        assertThat(commands.exists("instance:heartbeat:" + id, "instance:shutdown:" + id)).isZero();
        assertThat(commands.zscore("instance:ids", id)).isNull();
        assertThat(heartbeatLines("retired:", id)).containsExactly("retired: instance=" + id + " heartbeat=0 ids=1 marker=0");
    }

    @Test
    void shutdownMarkerSet_theInstanceTakesNoCommandAfterwards_evenBeforeItStops() throws Exception {
        takesNoCommandAfter(Map.of(), id -> commands.set("instance:shutdown:" + id, "operator"));
    }

    @Test
    void heartbeatDeleted_whenDeleteMeansShutdown_theInstanceTakesNoCommandAfterwards_evenBeforeItStops()
            throws Exception {
        takesNoCommandAfter(Map.of("heartbeat.delete-means", "shutdown"), id -> commands.del("instance:heartbeat:" + id));
    }

    /** After {@code stopOrder} (given the instance id), a command posted for its device stays queued. */
    private void takesNoCommandAfter(Map<String, Object> settings, java.util.function.Consumer<String> stopOrder)
            throws Exception {
        // Renewals far apart: the take, not the renewal, is what must see the order.
        Map<String, Object> all = new java.util.HashMap<>(Map.of("heartbeat.ttl", "60s", "heartbeat.interval", "30s"));
        all.putAll(settings);
        IngestionServer a = server("a", all);
        AtomicBoolean stopAsked = neverStopped(a);
        DeviceClient device = loggedIn(a);
        String id = a.instanceId();
        stopOrder.accept(id);

        HttpResponse<String> queued = postCommand(a);

        assertThat(queued.statusCode()).isEqualTo(202);
        // The enqueue woke the instance holding the device; it must leave the command queued.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                .until(() -> commands.llen("commands:queue:" + IMEI) == 1L
                        && commands.hlen("commands:inflight:" + id) == 0L);
        assertThat(commands.hget("command:" + commands.lindex("commands:queue:" + IMEI, 0), "status"))
                .isEqualTo("queued");
        assertThat(device.closedByServer(200)).isFalse();
        assertThat(stopAsked).as("the renewal had not read the order yet").isFalse();
    }

    private HttpResponse<String> postCommand(IngestionServer to) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.httpAddress().getPort()
                        + "/api/v1/devices/" + IMEI + "/commands"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"getinfo\"}")).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> postShutdown(IngestionServer to, String id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.httpAddress().getPort()
                        + "/api/v1/instances/" + id + "/shutdown"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A remote shutdown of {@code server} only records that it was asked for. */
    private static AtomicBoolean neverStopped(IngestionServer server) {
        AtomicBoolean asked = new AtomicBoolean();
        server.onRemoteShutdown(() -> asked.set(true));
        return asked;
    }

    private void keepsServingUnderANewId(IngestionServer server, String oldId, DeviceClient device, String imei)
            throws Exception {
        await().atMost(Duration.ofSeconds(15)).until(() -> !oldId.equals(server.instanceId()));
        String newId = server.instanceId();
        await().atMost(Duration.ofSeconds(10)).until(() -> newId.equals(commands.hget("connections:registry", imei)));
        assertThat(commands.exists("instance:heartbeat:" + newId)).isEqualTo(1);
        assertThat(device.closedByServer()).isFalse();
        assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
    }

    private record Dumped(byte[] value, long pttl) {
    }

    /** Every key with its value and remaining TTL, as an RDB snapshot would hold them. */
    private Map<String, Dumped> snapshot() {
        try (StatefulRedisConnection<byte[], byte[]> raw = redis.client().connect(ByteArrayCodec.INSTANCE)) {
            Map<String, Dumped> keys = new HashMap<>();
            for (byte[] key : raw.sync().keys("*")) {
                keys.put(new String(key, StandardCharsets.UTF_8), new Dumped(raw.sync().dump(key), raw.sync().pttl(key)));
            }
            return keys;
        }
    }

    /** Replaces the whole dataset with {@code snapshot} in one transaction, like a restart on an older RDB. */
    private void restore(Map<String, Dumped> snapshot) {
        try (StatefulRedisConnection<byte[], byte[]> raw = redis.client().connect(ByteArrayCodec.INSTANCE)) {
            RedisCommands<byte[], byte[]> tx = raw.sync();
            tx.multi();
            tx.flushall();
            snapshot.forEach((key, dumped) -> tx.restore(key.getBytes(StandardCharsets.UTF_8), dumped.value(),
                    RestoreArgs.Builder.ttl(Math.max(0, dumped.pttl()))));
            assertThat(tx.exec().wasDiscarded()).isFalse();
        }
    }

    @Test
    void redisCutOffLongerThanTheTtl_instanceComesBackUnderANewId_andKeepsItsDevices() throws Exception {
        IngestionServer a = server("a");
        DeviceClient device = loggedIn(a);
        String oldId = a.instanceId();

        redis.freeze();
        // Nothing can be observed while Redis is frozen: wait out the TTL, with margin.
        TimeUnit.MILLISECONDS.sleep(TTL.toMillis() * 2);
        redis.thaw();

        await().atMost(Duration.ofSeconds(15)).until(() -> !oldId.equals(a.instanceId()));
        String newId = a.instanceId();
        await().atMost(Duration.ofSeconds(10)).until(() -> newId.equals(commands.hget("connections:registry", IMEI)));
        assertThat(commands.exists("instance:heartbeat:" + oldId)).isZero();
        assertThat(commands.exists("instance:heartbeat:" + newId)).isEqualTo(1);
        assertThat(device.closedByServer()).isFalse();
        assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
        assertThat(commands.xrevrange("telemetry", io.lettuce.core.Range.create("-", "+"),
                io.lettuce.core.Limit.from(1)).get(0).getBody().get("instance")).isEqualTo(newId);
    }

    @Test
    void redisCutOffLongerThanTheTtl_whileAnotherInstanceTookTheDevice_theConnectionIsClosed() throws Exception {
        IngestionServer a = server("a");
        DeviceClient device = loggedIn(a);
        String oldId = a.instanceId();

        redis.freeze();
        TimeUnit.MILLISECONDS.sleep(TTL.toMillis() * 2);
        redis.thaw();
        // Another instance claimed the device while A was cut off (as after a janitor eviction and a reconnect).
        commands.hset("connections:registry", IMEI, "elsewhere-7");

        await().atMost(Duration.ofSeconds(15)).until(() -> !oldId.equals(a.instanceId()));
        await().atMost(Duration.ofSeconds(10)).until(device::closedByServer);
        assertThat(commands.hget("connections:registry", IMEI)).isEqualTo("elsewhere-7");
    }
}
