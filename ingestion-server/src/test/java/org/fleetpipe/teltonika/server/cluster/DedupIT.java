package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteSettings;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.InProcessServers;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Resent records are stored once: on the same connection, after a lost ACK on another replica, in a race. */
@WithRedis
class DedupIT {

    private static final String IMEI = TestImeis.WIKI;

    private RedisFixture redis;
    private InProcessServers cluster;
    private RedisCommands<String, String> commands;

    @BeforeEach
    void connect(RedisFixture redis) {
        this.redis = redis;
        cluster = new InProcessServers(redis, Map.of());
        commands = cluster.redis();
    }

    @AfterEach
    void tearDown() throws Exception {
        cluster.close();
    }

    private IngestionServer server(Map<String, Object> extra) throws InterruptedException {
        return cluster.start(extra);
    }

    private DeviceClient device(IngestionServer on) throws Exception {
        DeviceClient device = cluster.connect(on);
        assertThat(device.login(IMEI)).isEqualTo(1);
        return device;
    }

    @Test
    void resentOnTheSameConnection_isAckedAgain_butStoredOnce() throws Exception {
        IngestionServer a = server(Map.of());
        byte[] packet = Frames.avl(new RandomAvl(7).packet(CodecId.CODEC_8E, 5));
        DeviceClient device = device(a);

        assertThat(device.sendAndReadAck(packet)).isEqualTo(5);
        assertThat(device.sendAndReadAck(packet)).as("acked in full: the device must drop them").isEqualTo(5);

        assertThat(commands.xlen("telemetry")).isEqualTo(5);
    }

    @Test
    void ackLostThenResentToTheOtherReplica_oneEntryPerRecord() throws Exception {
        IngestionServer a = server(Map.of());
        IngestionServer b = server(Map.of());
        byte[] packet = Frames.avl(new RandomAvl(8).packet(CodecId.CODEC_8, 10));

        DeviceClient first = device(a);
        first.send(packet);
        // The server wrote the records; the device goes away before it reads the ACK.
        await().atMost(Duration.ofSeconds(10)).until(() -> commands.xlen("telemetry") == 10);
        first.close();

        DeviceClient second = device(b);
        assertThat(second.sendAndReadAck(packet)).isEqualTo(10);

        assertThat(commands.xlen("telemetry")).isEqualTo(10);
    }

    @Test
    void sameTimestampDifferentContent_isADifferentRecord() throws Exception {
        IngestionServer a = server(Map.of());
        AvlRecord record = new RandomAvl(9).packet(CodecId.CODEC_8, 1).records().get(0);
        AvlRecord moved = new AvlRecord(record.timestamp(), record.priority(),
                new org.fleetpipe.teltonika.codec.avl.GpsElement(record.gps().longitude() + 1, record.gps().latitude(),
                        record.gps().altitude(), record.gps().angle(), record.gps().satellites(), record.gps().speed()),
                record.eventIoId(), record.generationType(), record.io());
        DeviceClient device = device(a);

        device.sendAndReadAck(Frames.avl(new AvlPacket(CodecId.CODEC_8, List.of(record))));
        device.sendAndReadAck(Frames.avl(new AvlPacket(CodecId.CODEC_8, List.of(moved))));

        assertThat(commands.xlen("telemetry")).isEqualTo(2);
    }

    @Test
    void packetWithSomeRecordsAlreadyStored_storesOnlyTheNewOnesInPacketOrder() throws Exception {
        IngestionServer a = server(Map.of());
        List<AvlRecord> records = new RandomAvl(21).packet(CodecId.CODEC_8E, 4).records();
        DeviceClient device = device(a);

        device.sendAndReadAck(Frames.avl(new AvlPacket(CodecId.CODEC_8E, List.of(records.get(1), records.get(3)))));
        assertThat(device.sendAndReadAck(Frames.avl(new AvlPacket(CodecId.CODEC_8E, records)))).isEqualTo(4);

        assertThat(commands.xrange("telemetry", io.lettuce.core.Range.create("-", "+")))
                .extracting(m -> m.getBody().get("ts"))
                .containsExactly(ts(records.get(1)), ts(records.get(3)), ts(records.get(0)), ts(records.get(2)));
    }

    @Test
    void recordRepeatedWithinOnePacket_isStoredOnce() throws Exception {
        IngestionServer a = server(Map.of());
        List<AvlRecord> records = new RandomAvl(22).packet(CodecId.CODEC_16, 2).records();
        DeviceClient device = device(a);

        long acked = device.sendAndReadAck(Frames.avl(new AvlPacket(CodecId.CODEC_16,
                List.of(records.get(0), records.get(1), records.get(0)))));

        assertThat(acked).isEqualTo(3);
        assertThat(commands.xlen("telemetry")).isEqualTo(2);
    }

    @Test
    void identitiesPerDevice_areKeptInTwoGenerationsOfTheCapAndExpire() throws Exception {
        IngestionServer a = server(Map.of("telemetry.dedup-per-device", 5));
        RandomAvl random = new RandomAvl(23);
        byte[] first = Frames.avl(random.packet(CodecId.CODEC_8, 8));
        byte[] second = Frames.avl(random.packet(CodecId.CODEC_8, 3));
        byte[] third = Frames.avl(random.packet(CodecId.CODEC_8, 3));
        DeviceClient device = device(a);

        device.sendAndReadAck(first);
        // 8 >= 5: the recent set became the previous generation at once.
        assertThat(commands.exists("dedup:recent:" + IMEI)).isZero();
        assertThat(commands.scard("dedup:previous:" + IMEI)).isEqualTo(8);
        assertThat(commands.objectEncoding("dedup:previous:" + IMEI)).isEqualTo("intset");
        assertThat(commands.pttl("dedup:previous:" + IMEI)).isPositive().isLessThanOrEqualTo(Duration.ofHours(1).toMillis());
        device.sendAndReadAck(first);
        assertThat(commands.xlen("telemetry")).as("still remembered in the previous generation").isEqualTo(8);

        device.sendAndReadAck(second);
        assertThat(commands.scard("dedup:recent:" + IMEI)).isEqualTo(3);
        assertThat(commands.pttl("dedup:recent:" + IMEI)).isPositive().isLessThanOrEqualTo(Duration.ofHours(1).toMillis());
        device.sendAndReadAck(third);
        // 6 >= 5: renamed over the first packet's generation, which is forgotten.
        assertThat(commands.scard("dedup:previous:" + IMEI)).isEqualTo(6);
        device.sendAndReadAck(third);
        // A device sends records again after a lost ACK: after reconnecting, or its last packet
        // again on the same connection. Only those packets read the sets (ResendGuard).
        device.close();
        device = device(a);
        device.sendAndReadAck(second);
        assertThat(commands.xlen("telemetry")).isEqualTo(8 + 3 + 3);
        device.close();
        device = device(a);
        device.sendAndReadAck(first);
        assertThat(commands.xlen("telemetry")).as("older than two generations: stored again").isEqualTo(8 + 3 + 3 + 8);
    }

    private static String ts(AvlRecord record) {
        return Long.toString(record.timestamp());
    }

    @Test
    void dedupOff_storesEveryResend() throws Exception {
        IngestionServer a = server(Map.of("telemetry.dedup-window", "0s"));
        byte[] packet = Frames.avl(new RandomAvl(10).packet(CodecId.CODEC_16, 3));
        DeviceClient device = device(a);

        device.sendAndReadAck(packet);
        device.sendAndReadAck(packet);

        assertThat(commands.xlen("telemetry")).isEqualTo(6);
        assertThat(commands.exists("dedup:recent:" + IMEI, "dedup:previous:" + IMEI)).isZero();
    }

    @Test
    void twoWritersRacingOnOneResend_storeItOnce() throws Exception {
        // Two replicas' writers on their own connections, the same packet at the same moment.
        IngestKeys keys = new IngestKeys(new RedisKeys(""));
        try (StatefulRedisConnection<String, String> c1 = redis.client().connect();
             StatefulRedisConnection<String, String> c2 = redis.client().connect()) {
            RedisTelemetryWriter w1 = new RedisTelemetryWriter(c1.async(), keys, new TelemetryEntryMapper("a-1"),
                    new TelemetryWriteSettings(Duration.ofHours(1), 128, Duration.ofDays(7)));
            RedisTelemetryWriter w2 = new RedisTelemetryWriter(c2.async(), keys, new TelemetryEntryMapper("b-1"),
                    new TelemetryWriteSettings(Duration.ofHours(1), 128, Duration.ofDays(7)));
            Imei imei = new Imei(IMEI);
            for (int round = 0; round < 200; round++) {
                AvlPacket packet = new RandomAvl(1000 + round).packet(CodecId.CODEC_8, 4);
                long rx = System.currentTimeMillis() + round;
                CompletableFuture<Integer> first = w1.write(imei, packet, rx).toCompletableFuture();
                CompletableFuture<Integer> second = w2.write(imei, packet, rx).toCompletableFuture();
                assertThat(first.join() + second.join()).as("round %d: stored once in all", round).isEqualTo(4);
            }
        }
        assertThat(commands.xlen("telemetry")).isEqualTo(800);
    }
}
