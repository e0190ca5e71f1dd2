package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.stream.PartitionLayout;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.PartitionRule;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TELEMETRY_PARTITIONS on one Redis: each device's records go to its partition's stream (the
 * documented CRC-32 rule, computed here independently), in order and once, resends included; the
 * servers agree on the count or refuse to start; one full partition holds only its own devices.
 */
@WithRedis
class PartitionsIT {

    private static final int PARTITIONS = 4;

    private RedisFixture fixture;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private IngestionServer server;

    @BeforeEach
    void connect(RedisFixture fixture) {
        this.fixture = fixture;
        connection = fixture.client().connect();
        redis = connection.sync();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        connection.close();
    }

    private void startServer(Map<String, Object> extra) throws Exception {
        Map<String, Object> settings = new HashMap<>(Map.of("telemetry.partitions", PARTITIONS));
        settings.putAll(extra);
        server = ItServer.start(fixture, false, settings);
    }


    private static String stream(int partition) {
        return "telemetry:{" + partition + "}";
    }

    @Test
    void eachDevicesRecordsGoToItsPartitionInOrderAndOnce_resendsIncluded() throws Exception {
        startServer(Map.of());
        assertThat(redis.get("telemetry:partitions")).isEqualTo(Integer.toString(PARTITIONS));
        RandomAvl random = new RandomAvl(33L);
        Map<String, List<Long>> sent = new HashMap<>();
        List<DeviceClient> devices = new ArrayList<>();
        try {
            for (int d = 0; d < 12; d++) {
                String imei = TestImeis.numbered(7_000 + d);
                DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()));
                devices.add(device);
                assertThat(device.login(imei)).isEqualTo(1);
                List<Long> times = sent.computeIfAbsent(imei, k -> new ArrayList<>());
                for (int p = 0; p < 4; p++) {
                    AvlPacket packet = random.packet(CodecId.CODEC_8E, 5);
                    byte[] frame = Frames.avl(packet);
                    assertThat(device.sendAndReadAck(frame)).isEqualTo(packet.size());
                    packet.records().forEach(r -> times.add(r.timestamp()));
                    if (p == 1) {
                        // As after a lost ACK: the dedup sets, named in the device's partition, keep it out.
                        assertThat(device.sendAndReadAck(frame)).isEqualTo(packet.size());
                    }
                }
            }
        } finally {
            for (DeviceClient device : devices) {
                device.close();
            }
        }
        assertThat(redis.exists("telemetry")).as("nothing in the unpartitioned stream").isZero();
        Map<String, List<Long>> stored = new HashMap<>();
        int partitionsUsed = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            List<StreamMessage<String, String>> entries = redis.xrange(stream(p), io.lettuce.core.Range.create("-", "+"));
            partitionsUsed += entries.isEmpty() ? 0 : 1;
            for (StreamMessage<String, String> entry : entries) {
                String imei = entry.getBody().get("imei");
                assertThat(PartitionRule.partitionOf(imei, PARTITIONS)).as("partition of %s", imei).isEqualTo(p);
                stored.computeIfAbsent(imei, k -> new ArrayList<>()).add(Long.parseLong(entry.getBody().get("ts")));
            }
        }
        assertThat(partitionsUsed).as("12 devices spread over the partitions").isGreaterThan(1);
        assertThat(stored).as("every record once, each device's in the order sent").isEqualTo(sent);
        String imei = sent.keySet().iterator().next();
        assertThat(redis.exists("dedup:recent:{" + PartitionRule.partitionOf(imei, PARTITIONS) + "}:" + imei)).isOne();
    }

    @Test
    void namespacesThatDifferOnlyInBraces_shareNoPartitionedKey_theSecondIsRefused() throws Exception {
        startServer(Map.of("redis.namespace", "a:"));
        assertThat(redis.get("a:telemetry:namespace")).isEqualTo("a:");
        IngestionServer first = server;
        try {
            assertThatThrownBy(() -> startServer(Map.of("redis.namespace", "{a}:")))
                    .isInstanceOf(PartitionLayout.Conflict.class)
                    .hasMessageContaining("REDIS_NAMESPACE='{a}:'").hasMessageContaining("REDIS_NAMESPACE='a:'");
        } finally {
            server = first;
        }
    }

    @Test
    void aServerWithAnotherPartitionCountRefusesToStart() throws Exception {
        redis.set("telemetry:partitions", "8");
        assertThatThrownBy(() -> startServer(Map.of()))
                .isInstanceOf(PartitionLayout.Conflict.class)
                .hasMessageContaining("TELEMETRY_PARTITIONS=4").hasMessageContaining("8 partitions");
        server = null;
    }

    @Test
    void aFullPartitionHoldsOnlyItsOwnDevices() throws Exception {
        String slow = TestImeis.numbered(100);
        String other = slow;
        for (int n = 101; PartitionRule.partitionOf(other, PARTITIONS) == PartitionRule.partitionOf(slow, PARTITIONS); n++) {
            other = TestImeis.numbered(n);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            redis.xgroupCreate(XReadArgs.StreamOffset.from(stream(p), "0"), "downstream",
                    XGroupCreateArgs.Builder.mkstream());
        }
        // 400 unread across 4 partitions: 100 each. The gauges follow the retention ticker (100 ms);
        // the waits leave room for a busy CI machine, where a 10 s one ran out once.
        startServer(Map.of("telemetry.max-unread", 400, "telemetry.retention.interval", "100ms",
                "telemetry.backpressure.fair-share-from", 1));
        String full = stream(PartitionRule.partitionOf(slow, PARTITIONS));
        redis.eval("for i = 1, 100 do redis.call('XADD', KEYS[1], '*', 'filler', i) end", ScriptOutputType.STATUS, full);
        await().atMost(Duration.ofSeconds(30)).until(() -> gauge("teltonika.telemetry.backpressure.partitions") == 1.0);

        RandomAvl random = new RandomAvl(34L);
        try (DeviceClient held = DeviceClient.connect(ItServer.loopback(server.tcpAddress()));
             DeviceClient free = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(held.login(slow)).isEqualTo(1);
            assertThat(free.login(other)).isEqualTo(1);
            AvlPacket waiting = random.packet(CodecId.CODEC_8E, 3);
            held.send(Frames.avl(waiting));
            CompletableFuture<Long> heldAck = CompletableFuture.supplyAsync(() -> readAck(held));
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("teltonika.telemetry.held.packets") == 1.0);
            AvlPacket passing = random.packet(CodecId.CODEC_8E, 3);
            assertThat(free.sendAndReadAck(Frames.avl(passing))).as("the other partition is acknowledged")
                    .isEqualTo(passing.size());
            assertThat(heldAck).isNotDone();

            redis.xgroupSetid(XReadArgs.StreamOffset.latest(full), "downstream");
            assertThat(heldAck.get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(waiting.size());
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(gauge("teltonika.telemetry.backpressure")).isZero();
            double sum = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                sum += server.metrics().registry().get("teltonika.telemetry.partition.length")
                        .tag("partition", Integer.toString(p)).gauge().value();
            }
            // The filler, delivered by the SETID, is trimmed; the two packets wait for the group.
            assertThat(sum).as("the partitions add up to the stream gauge")
                    .isEqualTo(gauge("teltonika.telemetry.stream.length")).isEqualTo(6);
        });
    }

    private static long readAck(DeviceClient device) {
        try {
            return device.readAck();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private double gauge(String name) {
        return server.metrics().registry().get(name).gauge().value();
    }
}
