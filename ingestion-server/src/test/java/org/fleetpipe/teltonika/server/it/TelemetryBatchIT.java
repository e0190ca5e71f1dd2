package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.channel.DefaultEventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
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
 * Packets written on one event loop in the same round share one script call: each still gets its
 * own count of stored records, in order, deduplicated per device, and a failed call fails them all.
 */
@WithRedis
class TelemetryBatchIT {

    private static final String THIRD = "352093081452251";

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> commands;
    private RedisTelemetryWriter writer;

    private record Write(String imei, AvlPacket packet) {
    }

    @BeforeEach
    void connect(RedisFixture redis) {
        connection = redis.client().connect();
        commands = redis.client().connect().sync();
        writer = new RedisTelemetryWriter(connection.async(), new IngestKeys(new RedisKeys("")),
                new TelemetryEntryMapper("batch-1"),
                new TelemetryWriteSettings(Duration.ofHours(1), 128, Duration.ofDays(7)));
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        commands.getStatefulConnection().close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** Writes all of them from one task on the event loop, as a round of reads would, and waits for every answer. */
    private List<CompletableFuture<Integer>> writeInOneRound(List<Write> writes) throws Exception {
        List<CompletableFuture<Integer>> results = loop.submit(() -> {
            List<CompletableFuture<Integer>> started = new ArrayList<>();
            for (Write w : writes) {
                started.add(writer.write(new Imei(w.imei()), AvlPacketView.of(w.packet()), 1_700_000_000_000L,
                        ResendGuard.everyPacket(), loop).toCompletableFuture());
            }
            return started;
        }).get(10, TimeUnit.SECONDS);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).exceptionally(e -> null).get(10, TimeUnit.SECONDS);
        return results;
    }

    /** Script runs since the last CONFIG RESETSTAT (by SHA, or by body after a NOSCRIPT). */
    private long scriptCalls() {
        long calls = 0;
        for (String line : commands.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
            }
        }
        return calls;
    }

    @Test
    void packetsOfOneRound_shareOneCallAndEachGetsItsOwnCount() throws Exception {
        RandomAvl random = new RandomAvl(41);
        AvlPacket a = random.packet(CodecId.CODEC_8, 3);
        AvlPacket b = random.packet(CodecId.CODEC_8E, 2);
        List<AvlRecord> c = random.packet(CodecId.CODEC_16, 3).records();
        AvlPacket cWithRepeat = new AvlPacket(CodecId.CODEC_16, List.of(c.get(0), c.get(1), c.get(0), c.get(2)));
        AvlPacket d = random.packet(CodecId.CODEC_8, 1);
        commands.configResetstat();

        List<CompletableFuture<Integer>> results = writeInOneRound(List.of(
                new Write(TestImeis.WIKI, a),
                new Write(TestImeis.OTHER, b),
                new Write(TestImeis.WIKI, a),
                new Write(THIRD, cWithRepeat),
                new Write(TestImeis.OTHER, d)));

        assertThat(results).extracting(CompletableFuture::join).containsExactly(3, 2, 0, 3, 1);
        assertThat(scriptCalls()).isEqualTo(1);
        List<StreamMessage<String, String>> entries = commands.xrange("telemetry", Range.create("-", "+"));
        assertThat(entries).extracting(m -> m.getBody().get("imei") + "/" + m.getBody().get("codec")).containsExactly(
                TestImeis.WIKI + "/8", TestImeis.WIKI + "/8", TestImeis.WIKI + "/8",
                TestImeis.OTHER + "/8E", TestImeis.OTHER + "/8E",
                THIRD + "/16", THIRD + "/16", THIRD + "/16",
                TestImeis.OTHER + "/8");
        assertThat(entries).allSatisfy(m -> assertThat(m.getBody()).containsEntry("instance", "batch-1")
                .containsEntry("rx", "1700000000000"));
        assertThat(entries.get(5).getBody()).containsKey("gen");
        assertThat(entries.get(8).getBody()).doesNotContainKey("gen");
    }

    @Test
    void moreThanOneBatchWorthInOneRound_isSplitAndAllStored() throws Exception {
        List<Write> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            writes.add(new Write(TestImeis.WIKI, new RandomAvl(500 + i).packet(CodecId.CODEC_8E, 10)));
        }
        commands.configResetstat();

        List<CompletableFuture<Integer>> results = writeInOneRound(writes);

        assertThat(results).extracting(CompletableFuture::join).containsOnly(10);
        assertThat(commands.xlen("telemetry")).isEqualTo(400);
        assertThat(scriptCalls()).isGreaterThanOrEqualTo(3).isLessThan(40);
    }

    @Test
    void callThatFails_failsEveryPacketOfIt() throws Exception {
        commands.set("telemetry", "not a stream");

        List<CompletableFuture<Integer>> results = writeInOneRound(List.of(
                new Write(TestImeis.WIKI, new RandomAvl(61).packet(CodecId.CODEC_8, 2)),
                new Write(TestImeis.OTHER, new RandomAvl(62).packet(CodecId.CODEC_8, 2))));

        for (CompletableFuture<Integer> result : results) {
            assertThatThrownBy(result::get).isInstanceOf(ExecutionException.class).hasMessageContaining("WRONGTYPE");
        }
        assertThat(commands.exists("dedup:recent:" + TestImeis.WIKI, "dedup:recent:" + TestImeis.OTHER)).isZero();
    }
}
