package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteSettings;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A device's info hash (written at login) lives as long as its connection keeps sending: every
 * stored packet starts its TTL again, so a connection of more than DEVICE_INFO_TTL keeps it. The
 * writer never creates one (UDP devices, or a hash already expired, have none).
 */
@WithRedis
class DeviceInfoRefreshIT {

    private static final Duration INFO_TTL = Duration.ofDays(7);

    private final IngestKeys keys = new IngestKeys(new RedisKeys(""));
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> commands;
    private RedisTelemetryWriter writer;

    @BeforeEach
    void connect(RedisFixture redis) {
        connection = redis.client().connect();
        commands = connection.sync();
        writer = new RedisTelemetryWriter(connection.async(), keys, new TelemetryEntryMapper("info-1"),
                new TelemetryWriteSettings(Duration.ofHours(1), 128, INFO_TTL));
    }

    @AfterEach
    void close() {
        connection.close();
    }

    private int write(String imei, AvlPacket packet) throws Exception {
        return writer.write(new Imei(imei), packet, 1_700_000_000_000L).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aStoredPacket_startsTheInfoTtlAgain_andSetsTheLastRecordTime() throws Exception {
        String info = keys.deviceInfo(TestImeis.WIKI);
        // As claim.lua left it six days and 23 hours ago.
        commands.hset(info, Map.of("instance", "a-1", "connected_at", "1", "remote", "127.0.0.1:5000",
                "session", "s-1"));
        commands.pexpire(info, Duration.ofHours(1).toMillis());
        AvlPacket packet = new RandomAvl(7).packet(CodecId.CODEC_8, 3);
        long newest = packet.records().stream().mapToLong(AvlRecord::timestamp).max().orElseThrow();

        assertThat(write(TestImeis.WIKI, packet)).isEqualTo(3);

        assertThat(commands.pttl(info)).isGreaterThan(INFO_TTL.minusMinutes(1).toMillis())
                .isLessThanOrEqualTo(INFO_TTL.toMillis());
        assertThat(commands.hgetall(info)).containsEntry("last_record_at", Long.toString(newest))
                .containsEntry("session", "s-1").containsEntry("instance", "a-1");
    }

    @Test
    void packetsOfOneConnection_thenTheInfoIsRefreshedAtMostEveryTenSeconds() throws Exception {
        String info = keys.deviceInfo(TestImeis.WIKI);
        commands.hset(info, Map.of("instance", "a-1", "session", "s-1"));
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(9);
        AvlPacket first = random.packet(CodecId.CODEC_8, 2);
        AvlPacket second = random.packet(CodecId.CODEC_8, 2);

        writer.write(new Imei(TestImeis.WIKI), first, 1_700_000_000_000L, connection).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        String afterFirst = commands.hget(info, "last_record_at");
        writer.write(new Imei(TestImeis.WIKI), second, 1_700_000_005_000L, connection).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(commands.hget(info, "last_record_at")).as("5 s later: not refreshed").isEqualTo(afterFirst);
        AvlPacket third = random.packet(CodecId.CODEC_8, 2);
        writer.write(new Imei(TestImeis.WIKI), third, 1_700_000_010_000L, connection).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);

        assertThat(commands.hget(info, "last_record_at")).as("10 s later")
                .isEqualTo(Long.toString(third.records().stream().mapToLong(AvlRecord::timestamp).max().orElseThrow()));
        assertThat(commands.xlen("telemetry")).isEqualTo(6);
    }

    @Test
    void aDeviceWithoutInfo_getsNone() throws Exception {
        assertThat(write(TestImeis.OTHER, new RandomAvl(8).packet(CodecId.CODEC_8E, 2))).isEqualTo(2);

        assertThat(commands.exists(keys.deviceInfo(TestImeis.OTHER))).isZero();
        assertThat(commands.xlen(keys.telemetry())).isEqualTo(2);
    }

    @Test
    void aPacketOfOnlyDuplicates_stillRefreshesTheInfo() throws Exception {
        String info = keys.deviceInfo(TestImeis.WIKI);
        AvlPacket packet = new RandomAvl(9).packet(CodecId.CODEC_16, 2);
        commands.hset(info, "instance", "a-1");
        assertThat(write(TestImeis.WIKI, packet)).isEqualTo(2);
        commands.pexpire(info, 5_000);

        assertThat(write(TestImeis.WIKI, packet)).as("a resend: nothing new stored").isZero();

        assertThat(commands.pttl(info)).isGreaterThan(INFO_TTL.minusMinutes(1).toMillis());
        assertThat(commands.xlen(keys.telemetry())).isEqualTo(2);
    }
}
