package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A consumer group that stops reading: the stream grows past the count cap without losing an
 * entry; at the hard cap the next packet gets no ACK, the metric, queue health and readiness (still
 * 200) say why; once the group reads and acknowledges, the held packet is written and acknowledged by itself.
 */
@WithRedis
class StreamBackpressureIT {

    private static final String TOKEN = "stream-backpressure-test-token-0123456789";
    private static final int CAP = 200;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private IngestionServer server;

    private RedisFixture fixture;

    @BeforeEach
    void connect(RedisFixture fixture) {
        this.fixture = fixture;
        connection = fixture.client().connect();
        redis = connection.sync();
        redis.xgroupCreate(XReadArgs.StreamOffset.from("telemetry", "0"), "downstream",
                XGroupCreateArgs.Builder.mkstream());
    }

    private void startServer(boolean withUdp, Map<String, Object> extra) throws Exception {
        // One device fills the stream here: no per-device share, which DeviceShareAttackIT covers.
        Map<String, Object> settings = new java.util.HashMap<>(Map.of("telemetry.stream-max-len", 20,
                "telemetry.max-unread", CAP, "telemetry.retention.interval", "100ms", "api-token", TOKEN,
                "telemetry.backpressure.fair-share-from", 1));
        settings.putAll(extra);
        server = ItServer.start(fixture, withUdp, settings);
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        connection.close();
    }

    /** Entries nobody has read, straight into the stream: the cap is reached without devices. */
    private void fillToTheCap() {
        redis.eval("for i = 1, " + CAP + " do redis.call('XADD', KEYS[1], '*', 'filler', i) end",
                io.lettuce.core.ScriptOutputType.STATUS, "telemetry");
        await().atMost(Duration.ofSeconds(10)).until(() -> meter("teltonika.telemetry.backpressure") == 1.0);
    }

    /** The group catches up at once: everything in the stream counts as delivered and acknowledged. */
    private void groupCatchesUp() {
        redis.xgroupSetid(XReadArgs.StreamOffset.latest("telemetry"), "downstream");
    }

    private double meter(String name) {
        return server.metrics().registry().get(name).gauge().value();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + path))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode streamQueue() throws Exception {
        for (JsonNode q : json.readTree(get("/api/v1/health/queues").body()).get("queues")) {
            if (q.get("queue").asText().equals("telemetry-stream")) {
                return q;
            }
        }
        throw new AssertionError("no telemetry-stream queue");
    }

    private static String key(String imei, AvlRecord r) {
        return imei + ":" + r.timestamp();
    }

    @Test
    void groupStopsReading_thenNoAckAtTheCap_andAckingResumesOnceItCatchesUp() throws Exception {
        startServer(false, Map.of());
        RandomAvl random = new RandomAvl(18L);
        Set<String> acknowledged = new HashSet<>();
        int acknowledgedRecords = 0;
        String imei = TestImeis.WIKI;
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(imei)).isEqualTo(1);
            // Past the count cap (20): kept, the group has read none of it.
            AvlPacket held;
            CompletableFuture<Long> heldAck;
            while (true) {
                AvlPacket packet = random.packet(CodecId.CODEC_8E, 10);
                device.send(Frames.avl(packet));
                CompletableFuture<Long> ack = readAckAsync(device);
                // Either the ACK comes, or the server holds the packet (and then no ACK can come yet).
                await().atMost(Duration.ofSeconds(20)).until(() -> ack.isDone() || heldPackets() > 0);
                if (!ack.isDone()) {
                    held = packet;
                    heldAck = ack;
                    break;
                }
                assertThat(ack.get()).isEqualTo(packet.size());
                packet.records().forEach(r -> acknowledged.add(key(imei, r)));
                acknowledgedRecords += packet.size();
                assertThat(acknowledgedRecords).as("stopped acknowledging near the cap").isLessThan(CAP + 200);
            }
            assertThat(acknowledgedRecords).isGreaterThanOrEqualTo(CAP);
            assertThat(redis.xlen("telemetry")).isGreaterThanOrEqualTo(CAP);

            // Said by the metric, queue health and readiness.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(get("/metrics").body()).contains("teltonika_telemetry_backpressure 1.0")
                        .contains("teltonika_telemetry_held_packets 1.0");
                JsonNode q = streamQueue();
                assertThat(q.get("status").asText()).isEqualTo("unhealthy");
                assertThat(q.get("backpressure").asBoolean()).isTrue();
                assertThat(q.get("groups").get(0).get("group").asText()).isEqualTo("downstream");
                // Every replica shares the stream: a full one is no reason to take this pod out of the Service.
                HttpResponse<String> ready = get("/health/ready");
                assertThat(ready.statusCode()).isEqualTo(200);
                assertThat(ready.body()).contains("telemetry stream full").contains("\"telemetry\":\"unhealthy\"");
            });

            // The group catches up: everything it reads was acknowledged or is the held packet's.
            assertThat(heldAck).isNotDone();
            List<StreamMessage<String, String>> read = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                List<StreamMessage<String, String>> batch = redis.xreadgroup(Consumer.from("downstream", "c1"),
                        XReadArgs.Builder.count(100), XReadArgs.StreamOffset.lastConsumed("telemetry"));
                if (!batch.isEmpty()) {
                    read.addAll(batch);
                    redis.xack("telemetry", "downstream", batch.stream().map(StreamMessage::getId).toArray(String[]::new));
                }
                return heldAck.isDone();
            });
            assertThat(heldAck.get()).isEqualTo(held.size());
            held.records().forEach(r -> acknowledged.add(key(imei, r)));
            acknowledgedRecords += held.size();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(get("/health/ready").statusCode()).isEqualTo(200));
            read.addAll(redis.xreadgroup(Consumer.from("downstream", "c1"), XReadArgs.Builder.count(1000),
                    XReadArgs.StreamOffset.lastConsumed("telemetry")));

            Set<String> delivered = new HashSet<>();
            read.forEach(m -> delivered.add(m.getBody().get("imei") + ":" + m.getBody().get("ts")));
            assertThat(delivered).as("every acknowledged record reached the group").containsAll(acknowledged);
            assertThat(read).as("each once").hasSize(acknowledgedRecords);
            // The Prometheus text is made at most once a second.
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get("/metrics").body())
                    .contains("teltonika_telemetry_backpressure 0.0").contains("teltonika_telemetry_held_total 1.0"));
        }
    }

    private static CompletableFuture<Long> readAckAsync(DeviceClient device) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return device.readAck();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private double heldPackets() {
        return meter("teltonika.telemetry.held.packets");
    }

    @Test
    void udpDatagramAtTheCap_thenNoAckUntilTheGroupCatchesUp() throws Exception {
        startServer(true, Map.of());
        fillToTheCap();
        AvlPacket packet = new RandomAvl(19L).packet(CodecId.CODEC_8, 3);
        try (java.net.DatagramSocket device = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            device.setSoTimeout(20_000);
            byte[] datagram = Frames.udp(new UdpPacket(7, 8, TestImeis.WIKI, packet));
            device.send(new java.net.DatagramPacket(datagram, datagram.length, ItServer.loopback(server.udpAddress())));
            await().atMost(Duration.ofSeconds(10)).until(() -> heldPackets() == 1.0);

            groupCatchesUp();

            assertThat(SteadyDevices.nextAck(device)).isEqualTo(new UdpAck(7, 8, 3));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> meter("teltonika.telemetry.backpressure") == 0.0);
        assertThat(redis.xlen("telemetry")).as("the datagram's records, once released").isGreaterThanOrEqualTo(3);
    }

    @Test
    void packetPastTheHeldRecordsBound_thenClosedAtOnceWithoutAck() throws Exception {
        startServer(false, Map.of("telemetry.backpressure.max-held-records", 5));
        fillToTheCap();
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(1);
            device.send(Frames.avl(new RandomAvl(20L).packet(CodecId.CODEC_8E, 10)));

            assertThat(device.readUntilClosed()).as("no ACK, only the close").isEmpty();
        }
        assertThat(server.metrics().registry().get("teltonika.telemetry.hold.expired").functionCounter().count())
                .isEqualTo(1.0);
        assertThat(heldPackets()).isZero();
    }

    @Test
    void deviceGoneWhileItsPacketIsHeld_thenThePacketIsNeverWritten() throws Exception {
        startServer(false, Map.of());
        fillToTheCap();
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(1);
            device.send(Frames.avl(new RandomAvl(21L).packet(CodecId.CODEC_8, 4)));
            await().atMost(Duration.ofSeconds(10)).until(() -> heldPackets() == 1.0);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> heldPackets() == 0.0);

        groupCatchesUp();
        await().atMost(Duration.ofSeconds(10)).until(() -> meter("teltonika.telemetry.backpressure") == 0.0);

        assertThat(redis.xlen("telemetry")).as("only the filler, trimmed away; the abandoned packet never came")
                .isZero();
    }
}
