package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42 item 4, on real sockets with the default device rate budget: a tracker back from a
 * tunnel uploads 10,000 buffered records in 50-record packets, one in flight at a time as a real
 * device sends them, at the link's pace; a device from another network that sends without pause
 * beside it gets its burst and then no more than the sustained rate.
 */
@WithRedis
class BacklogUploadIT {

    private static final int PACKETS = 200;
    private static final int RECORDS = 50;
    /** The defaults under test (reference.conf). */
    private static final int BURST = 10_000;
    private static final int PER_SECOND = 50;

    private IngestionServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void backlogOf10000RecordsIn50RecordPackets_thenAllAcknowledgedWithinSeconds_whileAFlooderIsHeldToTheRate(
            RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of());
        InetSocketAddress tcp = ItServer.loopback(server.tcpAddress());
        List<byte[]> backlog = new ArrayList<>();
        RandomAvl random = new RandomAvl(42L).realistic().maxVariable(1, 16);
        long bytes = 0;
        for (int i = 0; i < PACKETS; i++) {
            byte[] frame = Frames.avl(random.packet(CodecId.CODEC_8E, RECORDS));
            backlog.add(frame);
            bytes += frame.length;
        }

        // Codec 8E records of 100-150 bytes, as a tracker with a usual IO set sends them.
        // The flooder: another IMEI from another network, a packet the moment the last was acknowledged.
        // Its burst is spent within about 2 s; the 13 s left measure the sustained rate to within 2 packets
        // (100 of about 650 records).
        long flooderSeconds = 15;
        CompletableFuture<long[]> flooder = CompletableFuture.supplyAsync(() -> flood(tcp, flooderSeconds));

        long acknowledged = 0;
        long started;
        try (DeviceClient device = DeviceClient.connectFrom(InetAddress.getByName("127.0.2.1"), tcp)) {
            assertThat(device.login(TestImeis.numbered(4201))).isEqualTo(0x01);
            started = System.nanoTime();
            for (byte[] frame : backlog) {
                acknowledged += device.sendAndReadAck(frame);
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("BacklogUploadIT: %d records in %d packets (%d bytes) acknowledged in %d ms%n",
                acknowledged, PACKETS, bytes, millis);
        assertThat(acknowledged).isEqualTo((long) PACKETS * RECORDS);
        // The bound is 15 s on loopback; twice that for a busy CI box.
        assertThat(millis).as("the backlog's upload time").isLessThan(30_000);

        long[] flood = flooder.get(flooderSeconds + 60, TimeUnit.SECONDS);
        long total = flood[0];
        long afterBurst = flood[1];
        long afterBurstMillis = flood[2];
        System.out.printf("BacklogUploadIT: the flooder had %d records acknowledged in %d s, %d of them in the"
                + " %d ms after its burst%n", total, flooderSeconds, afterBurst, afterBurstMillis);
        assertThat(total).as("the burst, and the rest at the sustained rate")
                .isLessThanOrEqualTo(BURST + PER_SECOND * flooderSeconds + 2 * RECORDS);
        assertThat(afterBurstMillis).as("the flooder spent its burst early").isGreaterThan(5_000);
        assertThat(afterBurst).as("past its burst, the flooder gets the sustained rate")
                .isLessThanOrEqualTo(PER_SECOND * afterBurstMillis / 1000 + 2 * RECORDS);
    }

    /**
     * Sends 50-record packets from 127.0.3.1 for {@code seconds}, each as soon as the previous one was
     * acknowledged: records acknowledged in all, those acknowledged once the first packet waited for
     * the budget, and the milliseconds since then.
     */
    private static long[] flood(InetSocketAddress tcp, long seconds) {
        RandomAvl random = new RandomAvl(7L).realistic().maxVariable(1, 16);
        try (DeviceClient flooder = DeviceClient.connectFrom(InetAddress.getByName("127.0.3.1"), tcp)) {
            assertThat(flooder.login(TestImeis.numbered(4202))).isEqualTo(0x01);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long total = 0;
            long afterBurst = 0;
            long burstSpentAt = 0;
            while (System.nanoTime() < end) {
                long sent = System.nanoTime();
                long acked = flooder.sendAndReadAck(Frames.avl(random.packet(CodecId.CODEC_8E, RECORDS)));
                total += acked;
                if (burstSpentAt != 0) {
                    afterBurst += acked;
                } else if (System.nanoTime() - sent > TimeUnit.MILLISECONDS.toNanos(200)) {
                    // The first packet that waited for its budget: the burst is spent.
                    burstSpentAt = System.nanoTime();
                }
            }
            long since = burstSpentAt == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - burstSpentAt);
            return new long[] {total, afterBurst, since};
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
