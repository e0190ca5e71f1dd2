package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.cluster.ClusterNode;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.fleetpipe.teltonika.testkit.junit.WithRedisCluster;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster primary killed (SIGKILL) while devices send: its replica is promoted, the server
 * follows the new topology by itself, and every device is acknowledged again; the devices of the
 * other primaries' partitions never stop. A class of its own: the killed node stays dead.
 */
@WithRedisCluster
class RedisClusterFailoverIT {

    private static final int PARTITIONS = 8;
    private static final int DEVICES = 12;

    /** A tracker: sends a packet, waits for its ACK; without one it reconnects and resends the same packet. */
    private static final class Tracker implements Runnable {
        private final String imei;
        private final int port;
        private final AtomicBoolean running;
        private final RandomAvl random;
        private final AtomicLong acknowledged = new AtomicLong();
        private final AtomicLong lastAckAt = new AtomicLong();
        private final List<AvlRecord> stored = new ArrayList<>();

        Tracker(String imei, int port, AtomicBoolean running, long seed) {
            this.imei = imei;
            this.port = port;
            this.running = running;
            this.random = new RandomAvl(seed);
        }

        @Override
        public void run() {
            AvlPacket packet = random.packet(CodecId.CODEC_8E, 2);
            // Bounded: at most this many attempts, each bounded by the client's read timeout.
            for (int attempt = 0; attempt < 2_000 && running.get(); attempt++) {
                try (DeviceClient device = DeviceClient.connect(port)) {
                    if (device.login(imei) != 1) {
                        continue;
                    }
                    while (running.get()) {
                        if (device.sendAndReadAck(Frames.avl(packet)) != packet.size()) {
                            break;
                        }
                        synchronized (stored) {
                            stored.addAll(packet.records());
                        }
                        acknowledged.incrementAndGet();
                        lastAckAt.set(System.currentTimeMillis());
                        packet = random.packet(CodecId.CODEC_8E, 2);
                        Thread.sleep(20);
                    }
                } catch (Exception e) {
                    // No ACK (the server closed, or Redis failed): like a tracker, try again shortly.
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException stop) {
                        return;
                    }
                }
            }
        }
    }

    private static int partitionOf(String imei) {
        CRC32 crc = new CRC32();
        crc.update(imei.getBytes(StandardCharsets.US_ASCII));
        return (int) (crc.getValue() % PARTITIONS);
    }

    private static String stream(int partition) {
        return "fleet:telemetry:{" + partition + "}";
    }

    @Test
    void aPrimaryKilledUnderLoad_failsOver_andEveryDeviceIsAcknowledgedAgain(LocalRedisCluster cluster)
            throws Exception {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", cluster.uri(), "redis.namespace", "{fleet}:",
                "telemetry.partitions", PARTITIONS, "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0,
                "bind-address", "127.0.0.1", "instance-id-prefix", "f"));
        settings.put("redis.command-timeout", "2s");
        AtomicBoolean running = new AtomicBoolean(true);
        List<Tracker> trackers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try (IngestionServer server = new IngestionServer(SettingsLoader.load(settings)).start()) {
            for (int d = 0; d < DEVICES; d++) {
                Tracker t = new Tracker(TestImeis.numbered(12_000 + d), server.tcpAddress().getPort(), running, d);
                trackers.add(t);
                Thread thread = new Thread(t, "tracker-" + d);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    trackers.stream().allMatch(t -> t.acknowledged.get() >= 3));

            // The primary of the first device's partition goes, as with kill -9.
            String victimStream = stream(partitionOf(trackers.get(0).imei));
            ClusterNode victim = cluster.servingSlot(SlotHash.getSlot(victimStream)).orElseThrow();
            Set<String> onVictim = new HashSet<>();
            Set<String> elsewhere = new HashSet<>();
            for (Tracker t : trackers) {
                int slot = SlotHash.getSlot(stream(partitionOf(t.imei)));
                (victim.owns(slot) ? onVictim : elsewhere).add(t.imei);
            }
            Map<String, Long> before = new ConcurrentHashMap<>();
            trackers.forEach(t -> before.put(t.imei, t.acknowledged.get()));
            long killedAt = System.currentTimeMillis();
            cluster.kill(victim);

            // Every device acknowledged again, several times, after the promotion.
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                for (Tracker t : trackers) {
                    assertThat(t.acknowledged.get()).as(t.imei).isGreaterThanOrEqualTo(before.get(t.imei) + 5);
                    assertThat(t.lastAckAt.get()).as(t.imei).isGreaterThan(killedAt);
                }
            });
            assertThat(onVictim).as("some devices were on the killed primary").isNotEmpty();
            running.set(false);
            for (Thread thread : threads) {
                thread.join(30_000);
            }

            // What was acknowledged after the failover is stored, in the device's partition.
            RedisClusterClient client = RedisClusterClient.create(cluster.redisUris());
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                for (Tracker t : trackers) {
                    Set<Long> times = new HashSet<>();
                    for (StreamMessage<String, String> m : connection.sync().xrange(stream(partitionOf(t.imei)),
                            Range.create("-", "+"))) {
                        if (t.imei.equals(m.getBody().get("imei"))) {
                            times.add(Long.parseLong(m.getBody().get("ts")));
                        }
                    }
                    List<AvlRecord> acked;
                    synchronized (t.stored) {
                        acked = List.copyOf(t.stored);
                    }
                    List<AvlRecord> last = acked.subList(Math.max(0, acked.size() - 10), acked.size());
                    assertThat(times).as("the last acknowledged records of %s", t.imei)
                            .containsAll(last.stream().map(AvlRecord::timestamp).toList());
                }
            } finally {
                client.shutdown();
            }
        } finally {
            running.set(false);
        }
    }
}
