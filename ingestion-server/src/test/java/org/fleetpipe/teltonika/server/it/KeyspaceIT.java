package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScoredValue;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Redis keys the server writes: namespace prefix, dead-letter cap, stream cap, instance ids. */
@WithRedis
class KeyspaceIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private IngestionServer server;
    private TelemetryStream redisView;

    @BeforeEach
    void connect(RedisFixture redis) {
        redisView = new TelemetryStream(redis);
    }

    @AfterEach
    void stop() throws Exception {
        redisView.close();
        if (server != null) {
            server.close();
        }
    }

    private void sendBadCrcFrames(int count) throws Exception {
        byte[] bad = Frames.withBadCrc(GoldenVectors.ofKind("avl").get(0).bytes());
        for (int i = 0; i < count; i++) {
            try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
                assertThat(device.login(TestImeis.numbered(i))).isEqualTo(0x01);
                device.send(bad);
                assertThat(device.readUntilClosed()).isEmpty();
            }
        }
    }

    @Test
    void namespace_whenSet_thenEveryKeyWrittenCarriesIt(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("redis.namespace", "fleet-a:"));
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            device.send(GoldenVectors.ofKind("avl").get(0).bytes());
            assertThat(device.readAck()).isEqualTo(1);
        }
        sendBadCrcFrames(1);

        await().atMost(Duration.ofSeconds(10)).until(() -> redisView.redis().exists("fleet-a:dlq:frames") == 1);
        assertThat(redisView.redis().keys("*")).allSatisfy(key -> assertThat(key).startsWith("fleet-a:"))
                .contains("fleet-a:telemetry", "fleet-a:dlq:frames", "fleet-a:instance:seq");
    }

    @Test
    void namespace_onTheMultiWritePath_thenEveryKeyTheBlocksWriteCarriesIt_andNothingIsUnprefixed(RedisFixture redis)
            throws Exception {
        // A small recent set, so the blocks also RENAME it into the previous generation.
        server = ItServer.start(redis, false, Map.of("redis.namespace", "fleet-m:", "telemetry.write-path",
                "transaction", "telemetry.dedup-per-device", 4));
        RandomAvl random = new RandomAvl(11L);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        int packets = 0;
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            // The first two packets after a login take the script, and so do packets until the loop's own
            // connection is up: send until several went in MULTI blocks.
            while (blockPackets() < 5 && packets < 500 && System.nanoTime() < deadline) {
                assertThat(device.sendAndReadAck(Frames.avl(random.packet(CodecId.CODEC_8, 3)))).isEqualTo(3);
                packets++;
            }
        }

        assertThat(blockPackets()).as("packets stored in MULTI blocks").isGreaterThanOrEqualTo(5);
        assertThat(redisView.redis().keys("*")).allSatisfy(key -> assertThat(key).startsWith("fleet-m:"))
                .contains("fleet-m:telemetry", "fleet-m:dedup:previous:" + TestImeis.WIKI,
                        "fleet-m:device:info:" + TestImeis.WIKI);
        assertThat(redisView.redis().xlen("fleet-m:telemetry")).isEqualTo(3L * packets);
        assertThat(redisView.redis().pttl("fleet-m:dedup:previous:" + TestImeis.WIKI))
                .as("renamed with the TTL the blocks set").isPositive();
    }

    private double blockPackets() {
        // A function counter: the writer counts, the meter reads.
        return server.metrics().registry().get("teltonika.telemetry.packets.written").tag("path", "block")
                .functionCounter().count();
    }

    @Test
    void instanceIds_atStart_thoseWithoutAHeartbeatAreForgotten_liveOnesKept(RedisFixture redis) throws Exception {
        var seed = redisView.redis();
        seed.zadd("instance:ids", 1, "gone-1");
        seed.zadd("instance:ids", 2, "alive-7");
        seed.zadd("instance:ids", 3, "gone-2");
        seed.hset("instance:heartbeat:alive-7", "host", "elsewhere");
        seed.expire("instance:heartbeat:alive-7", 600);
        // A dead instance's leftovers other than its id are the janitor's, not the start's.
        seed.hset("connections:registry", TestImeis.WIKI, "gone-1");

        server = ItServer.start(redis, false, Map.of("janitor.interval", "1h"));

        assertThat(seed.zrange("instance:ids", 0, -1)).containsExactly("alive-7", server.instanceId());
        assertThat(seed.hget("instance:heartbeat:alive-7", "host")).isEqualTo("elsewhere");
        assertThat(seed.hget("connections:registry", TestImeis.WIKI)).isEqualTo("gone-1");
    }

    @Test
    void deadLetters_whenMoreThanMaxEntries_thenOldestDroppedAndBytesCapped(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("dead-letters.max-entries", 2, "dead-letters.max-frame-bytes", 16));

        sendBadCrcFrames(3);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(redisView.frameDeadLetters())
                .extracting(l -> JSON.readTree(l.getValue()).get("imei").asText())
                .containsExactly(TestImeis.numbered(1), TestImeis.numbered(2)));
        List<ScoredValue<String>> letters = redisView.frameDeadLetters();
        JsonNode letter = JSON.readTree(letters.get(0).getValue());
        byte[] bad = Frames.withBadCrc(GoldenVectors.ofKind("avl").get(0).bytes());
        assertThat(letter.get("hex").asText()).isEqualTo(HexFormat.of().formatHex(bad, 0, 16));
        assertThat(letter.get("truncated").asBoolean()).isTrue();
    }

    @Test
    void telemetryStream_whenMaxLenSet_thenTrimmedNearIt(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("telemetry.stream-max-len", 10,
                "telemetry.retention.interval", "100ms"));
        RandomAvl random = new RandomAvl(3L);

        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            for (int i = 0; i < 10; i++) {
                device.send(Frames.avl(random.packet(CodecId.CODEC_8, 30)));
                assertThat(device.readAck()).isEqualTo(30);
            }
        }

        // Trimmed off the packets' path by the retention pass; "MAXLEN ~" trims whole radix-tree
        // nodes (100 entries by default), so only a bound is exact.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(redisView.redis().xlen("telemetry")).isBetween(10L, 200L));
    }

    @Test
    void instanceId_whenTwoServersStart_thenPrefixWithSuccessiveSequence(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("instance-id-prefix", "pod-x"));
        IngestionServer second = ItServer.start(redis, false, Map.of("instance-id-prefix", "pod-x"));
        try {
            assertThat(server.instanceId()).isEqualTo("pod-x-1");
            assertThat(second.instanceId()).isEqualTo("pod-x-2");
        } finally {
            second.close();
        }
    }
}
