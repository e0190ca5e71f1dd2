package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Range;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlScratch;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.redis.RedisEndpoint;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.redis.TransactionPipe;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.server.ingest.RedisTelemetryWriter;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryLanes;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriteSettings;
import org.fleetpipe.teltonika.server.testing.ExpectedEntries;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Packets that cannot be resends go in MULTI blocks on the event loop's own connection: they store
 * what the script would, keep the dedup state a later resend is checked against, and fail whole.
 */
@WithRedis
class TelemetryBlockIT {

    private static final long RX = 1_700_000_000_000L;
    private static final int CAP = 20;

    private final IngestKeys keys = new IngestKeys(new RedisKeys(""));
    private MultiThreadIoEventLoopGroup group;
    private EventLoop loop;
    private TelemetryLanes lanes;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> commands;
    private RedisTelemetryWriter writer;

    @BeforeEach
    void connect(RedisFixture redis) throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        loop = group.next();
        lanes = new TelemetryLanes(RedisEndpoint.of(redis.uri()).orElseThrow(), NioSocketChannel.class,
                Duration.ofSeconds(10));
        lanes.serve(group);
        connection = redis.client().connect();
        commands = redis.client().connect().sync();
        writer = new RedisTelemetryWriter(connection.async(), keys, new TelemetryEntryMapper("block-1"),
                new TelemetryWriteSettings(Duration.ofHours(1), CAP, Duration.ofDays(7)), lanes);
        // The loop's pipe opens with its first write (which the script takes meanwhile).
        write(new RandomAvl(1).packet(CodecId.CODEC_8, 1), "352093081452299", ResendGuard.forConnection(), RX);
        await().atMost(Duration.ofSeconds(20)).until(() -> commands.clientList().contains(
                "name=" + TransactionPipe.CLIENT_NAME));
        commands.flushall();
        commands.configResetstat();
    }

    @AfterEach
    void close() throws Exception {
        lanes.close();
        connection.close();
        commands.getStatefulConnection().close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void packetsAfterTheFirstTwo_goInBlocks_andStoreEveryRecord() throws Exception {
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(7);
        AvlPacket last = null;
        for (CodecId codec : new CodecId[] {CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16, CodecId.CODEC_8,
                CodecId.CODEC_8E, CodecId.CODEC_16}) {
            last = random.packet(codec, 10);
            assertThat(write(last, TestImeis.WIKI, connection, RX)).isEqualTo(10);
        }

        assertThat(commands.xlen("telemetry")).isEqualTo(60);
        assertThat(calls("exec")).as("one block per packet after the first two").isEqualTo(4);
        assertThat(calls("evalsha") + calls("eval")).as("the first two through the script").isEqualTo(2);
        assertThat(commands.pttl(keys.dedupPrevious(TestImeis.WIKI))).as("renamed by the last block, with its TTL")
                .isPositive();
        assertThat(write(last, TestImeis.WIKI, ResendGuard.forConnection(), RX)).as("resent after a reconnect").isZero();
    }

    @Test
    void packetResentOnTheSameConnectionAfterABlock_isAcknowledgedButStoredOnce() throws Exception {
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(8);
        pastTheScriptPackets(connection, random, CodecId.CODEC_8E);
        AvlPacket third = random.packet(CodecId.CODEC_8E, 10);
        assertThat(write(third, TestImeis.WIKI, connection, RX)).isEqualTo(10);
        assertThat(calls("exec")).isEqualTo(1);

        assertThat(write(third, TestImeis.WIKI, connection, RX)).as("its ACK was lost: resent").isZero();
        assertThat(write(third, TestImeis.WIKI, ResendGuard.forConnection(), RX)).as("after a reconnect").isZero();
        assertThat(commands.xlen("telemetry")).isEqualTo(30);
    }

    @Test
    void recentSet_isRenamedOnceTheConnectionAddedTheCap_andTheOlderGenerationStillCounts() throws Exception {
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(9);
        pastTheScriptPackets(connection, random, CodecId.CODEC_8);
        AvlPacket third = random.packet(CodecId.CODEC_8, 10);
        write(third, TestImeis.WIKI, connection, RX);
        write(random.packet(CodecId.CODEC_8, 10), TestImeis.WIKI, connection, RX);
        assertThat(commands.exists(keys.dedupRecent(TestImeis.WIKI))).as("renamed at the cap").isZero();
        assertThat(commands.scard(keys.dedupPrevious(TestImeis.WIKI))).isEqualTo(CAP);

        write(random.packet(CodecId.CODEC_8, 10), TestImeis.WIKI, connection, RX);
        assertThat(commands.scard(keys.dedupRecent(TestImeis.WIKI))).isEqualTo(10);
        assertThat(write(third, TestImeis.WIKI, ResendGuard.forConnection(), RX)).isZero();
        assertThat(commands.xlen("telemetry")).isEqualTo(50);
    }

    @Test
    void infoRefreshDueInABlock_restartsTheInfoTtlAndSetsTheLastRecordTime() throws Exception {
        String info = keys.deviceInfo(TestImeis.WIKI);
        commands.hset(info, "instance", "block-1");
        commands.pexpire(info, 5_000);
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(10);
        write(random.packet(CodecId.CODEC_8, 2), TestImeis.WIKI, connection, RX);
        write(random.packet(CodecId.CODEC_8, 2), TestImeis.WIKI, connection, RX);
        AvlPacket third = random.packet(CodecId.CODEC_8, 2);
        commands.pexpire(info, 5_000);

        write(third, TestImeis.WIKI, connection, RX + 11_000);

        assertThat(calls("exec")).isEqualTo(1);
        assertThat(commands.pttl(info)).isGreaterThan(Duration.ofDays(6).toMillis());
        long newest = Math.max(third.records().get(0).timestamp(), third.records().get(1).timestamp());
        assertThat(commands.hget(info, "last_record_at")).isEqualTo(Long.toString(newest));
    }

    @Test
    void blockThatFails_failsItsPackets_andNothingOfItIsAcknowledged() throws Exception {
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(11);
        pastTheScriptPackets(connection, random, CodecId.CODEC_8);
        commands.del("telemetry");
        commands.set("telemetry", "not a stream");

        CompletableFuture<Integer> failed = writeAsync(random.packet(CodecId.CODEC_8, 10), TestImeis.WIKI, connection,
                RX);

        assertThat(failed).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                .withMessageContaining("WRONGTYPE");
        assertThat(calls("exec")).isEqualTo(1);
    }

    @Test
    void roundsEndingWhileABlockIsUnanswered_goInOneBlockOnceItIsAnswered() throws Exception {
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(14);
        pastTheScriptPackets(connection, random, CodecId.CODEC_8);
        // Redis holds every client's commands for a while: the next block stays unanswered meanwhile.
        commands.clientPause(3_000);

        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Each write its own loop task: its own round, whose end would send a block of its own.
            acks.add(writeAsync(random.packet(CodecId.CODEC_8, 10), TestImeis.WIKI, connection, RX));
        }

        for (CompletableFuture<Integer> ack : acks) {
            assertThat(ack.get(20, TimeUnit.SECONDS)).isEqualTo(10);
        }
        assertThat(calls("exec")).as("the first round's block, then the other four rounds' together").isEqualTo(2);
        assertThat(commands.xlen("telemetry")).isEqualTo(70);
    }

    @Test
    void writesFromALoopOfAnotherGroup_openNoConnectionThere_andTakeTheScript() throws Exception {
        MultiThreadIoEventLoopGroup other = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            ResendGuard connection = ResendGuard.forConnection();
            RandomAvl random = new RandomAvl(12);
            for (int i = 0; i < 4; i++) {
                AvlPacket packet = random.packet(CodecId.CODEC_8, 5);
                EventLoop otherLoop = other.next();
                int stored = otherLoop.submit(() -> writer.write(new Imei(TestImeis.WIKI), AvlPacketView.of(packet), RX,
                        connection, otherLoop).toCompletableFuture()).get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
                assertThat(stored).isEqualTo(5);
            }
            assertThat(calls("exec")).isZero();
            assertThat(commands.clientList().lines().filter(l -> l.contains("name=" + TransactionPipe.CLIENT_NAME)))
                    .hasSize(1);
        } finally {
            other.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void packetScratchReusedOnceWriteReturns_storedEntriesAreStillTheRecordsSent() throws Exception {
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(13);
        List<AvlPacket> packets = List.of(random.packet(CodecId.CODEC_8, 10), random.packet(CodecId.CODEC_8E, 10),
                random.packet(CodecId.CODEC_16, 10), random.packet(CodecId.CODEC_8E, 10));
        AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
        AvlScratch scratch = new AvlScratch();

        // One loop task, as one round of reads: every write returns before the round's calls go out,
        // and each packet is viewed in the scratch the one before it was, as the handler does.
        List<CompletableFuture<Integer>> acks = loop.submit(() -> {
            List<CompletableFuture<Integer>> out = new ArrayList<>();
            for (AvlPacket packet : packets) {
                ByteBuf body = Unpooled.wrappedBuffer(RandomAvl.body(packet));
                out.add(writer.write(new Imei(TestImeis.WIKI), decoder.view(body, scratch), RX, connection, loop)
                        .toCompletableFuture());
            }
            decoder.view(Unpooled.wrappedBuffer(RandomAvl.body(random.packet(CodecId.CODEC_8E, 12))), scratch);
            return out;
        }).get(10, TimeUnit.SECONDS);

        for (CompletableFuture<Integer> ack : acks) {
            assertThat(ack.get(10, TimeUnit.SECONDS)).isEqualTo(10);
        }
        assertThat(calls("exec")).as("the last two in one block").isEqualTo(1);
        assertThat(calls("evalsha") + calls("eval")).as("the first two in one script call").isEqualTo(1);
        List<Map<String, String>> expected = new ArrayList<>();
        for (AvlPacket packet : packets) {
            expected.addAll(ExpectedEntries.of(TestImeis.WIKI, packet, "block-1"));
        }
        assertThat(commands.xrange("telemetry", Range.create("-", "+"))).map(m -> ExpectedEntries.comparable(m.getBody()))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void blockNotFull_waitsItsLingerForMorePackets_andGoesAsOne() throws Exception {
        RedisTelemetryWriter lingering = lingeringWriter(Duration.ofSeconds(3));
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(15);
        writeTheFirstTwo(lingering, random, 10, connection);

        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // Each its own loop task, so its own round: without the linger, the first would go alone.
            acks.add(writeAsync(lingering, random.packet(CodecId.CODEC_8, 10), connection));
        }

        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> !acks.get(0).isDone());
        for (CompletableFuture<Integer> ack : acks) {
            assertThat(ack.get(20, TimeUnit.SECONDS)).isEqualTo(10);
        }
        assertThat(calls("exec")).as("the three rounds in one block").isEqualTo(1);
        assertThat(lingering.blocksWritten()).isEqualTo(1);
        assertThat(lingering.blockPackets()).isEqualTo(3);
        assertThat(commands.xlen("telemetry")).isEqualTo(50);
    }

    @Test
    void fullBlock_goesAtOnce_whateverTheLinger() throws Exception {
        RedisTelemetryWriter lingering = lingeringWriter(Duration.ofMinutes(5));
        ResendGuard connection = ResendGuard.forConnection();
        RandomAvl random = new RandomAvl(16);
        writeTheFirstTwo(lingering, random, 5, connection);

        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        for (int i = 0; i < RedisTelemetryWriter.MAX_BATCH_PACKETS; i++) {
            acks.add(writeAsync(lingering, random.packet(CodecId.CODEC_8, 5), connection));
        }

        for (CompletableFuture<Integer> ack : acks) {
            assertThat(ack.get(20, TimeUnit.SECONDS)).isEqualTo(5);
        }
        assertThat(calls("exec")).isEqualTo(1);
    }

    /** A connection's first two packets may be resends: they take the script, not a block. */
    private void writeTheFirstTwo(RedisTelemetryWriter writer, RandomAvl random, int records, ResendGuard connection)
            throws Exception {
        for (int i = 0; i < 2; i++) {
            writeAsync(writer, random.packet(CodecId.CODEC_8, records), connection).get(10, TimeUnit.SECONDS);
        }
    }

    /** A writer whose blocks linger, its own pipe connected and the counters reset. */
    private RedisTelemetryWriter lingeringWriter(Duration linger) throws Exception {
        RedisTelemetryWriter lingering = new RedisTelemetryWriter(connection.async(), keys,
                new TelemetryEntryMapper("block-1"), new TelemetryWriteSettings(Duration.ofHours(1), CAP,
                Duration.ofDays(7), linger), lanes);
        writeAsync(lingering, new RandomAvl(2).packet(CodecId.CODEC_8, 1), ResendGuard.forConnection())
                .get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(20)).until(() -> commands.clientList().lines()
                .filter(l -> l.contains("name=" + TransactionPipe.CLIENT_NAME)).count() == 2);
        commands.flushall();
        commands.configResetstat();
        return lingering;
    }

    private CompletableFuture<Integer> writeAsync(RedisTelemetryWriter to, AvlPacket packet, ResendGuard connection)
            throws Exception {
        return loop.submit(() -> to.write(new Imei(TestImeis.WIKI), AvlPacketView.of(packet), RX, connection, loop)
                .toCompletableFuture()).get(10, TimeUnit.SECONDS);
    }

    /** The first two packets of a connection, which take the script: the next ones go in blocks. */
    private void pastTheScriptPackets(ResendGuard connection, RandomAvl random, CodecId codec) throws Exception {
        write(random.packet(codec, 10), TestImeis.WIKI, connection, RX);
        write(random.packet(codec, 10), TestImeis.WIKI, connection, RX);
    }

    private int write(AvlPacket packet, String imei, ResendGuard connection, long receivedAt) throws Exception {
        return writeAsync(packet, imei, connection, receivedAt).get(10, TimeUnit.SECONDS);
    }

    /** From the event loop, as a device connection's handler would. */
    private CompletableFuture<Integer> writeAsync(AvlPacket packet, String imei, ResendGuard connection,
                                                  long receivedAt) throws Exception {
        return loop.submit(() -> writer.write(new Imei(imei), AvlPacketView.of(packet), receivedAt, connection, loop)
                        .toCompletableFuture())
                .get(10, TimeUnit.SECONDS);
    }

    private long calls(String command) {
        for (String line : commands.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                return Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
    }
}
