package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cutover behind one carrier NAT pool (one /24, every device new to the fleet at once) is let in
 * without queueing, while made-up IMEIs from one network still create at most the burst plus the
 * rate's worth of keys. Open mode, real sockets from 127.0.x.y. Accept pacing, a separate budget,
 * is off here.
 */
@WithRedis
class NewImeiCutoverIT {

    private static final Logger LOG = LoggerFactory.getLogger(NewImeiCutoverIT.class);

    private RedisFixture fixture;
    private IngestionServer server;
    private TelemetryStream redisView;
    private ExecutorService pool;

    @BeforeEach
    void fixture(RedisFixture redis) {
        fixture = redis;
        redisView = new TelemetryStream(redis);
    }

    @AfterEach
    void stop() throws Exception {
        if (pool != null) {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        redisView.close();
    }

    private InetSocketAddress start(Map<String, Object> settings) throws Exception {
        Map<String, Object> all = new HashMap<>(Map.of("limits.max-accepts-per-network-per-second", 0));
        all.putAll(settings);
        server = ItServer.start(fixture, false, all);
        return ItServer.loopback(server.tcpAddress());
    }

    /** Logs {@code count} IMEIs in from {@code network}.1-250, 16 at a time; the answers in order. */
    private List<Integer> logins(InetSocketAddress tcp, String network, long firstImei, int count) throws Exception {
        pool = Executors.newFixedThreadPool(16);
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            InetAddress from = InetAddress.getByName(network + "." + (1 + i % 250));
            String imei = TestImeis.numbered(firstImei + i);
            answers.add(pool.submit(() -> {
                try (DeviceClient device = DeviceClient.connectFrom(from, tcp)) {
                    return device.login(imei);
                }
            }));
        }
        List<Integer> result = new ArrayList<>();
        for (Future<Integer> answer : answers) {
            result.add(answer.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        return result;
    }

    @Test
    void twoThousandNewImeisFromOneSlash24_thenAllLetInAtOnce() throws Exception {
        InetSocketAddress tcp = start(Map.of());
        int devices = 2_000;

        long start = System.nanoTime();
        List<Integer> answers = logins(tcp, "127.0.5", 100_000, devices);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        LOG.info("cutover: {} new IMEIs from 127.0.5.0/24 logged in in {} ms", devices, tookMillis);

        assertThat(answers.stream().filter(a -> a == 0x01).count()).as("every device of the cutover, at its first login")
                .isEqualTo(devices);
        assertThat(ServerMeters.count(server, "teltonika.logins", "reason", "new-imei-limit")).isZero();
        // Measured at 2-6 s on a shared 2-core machine; the old budget of 100 a minute took 20 minutes.
        assertThat(tookMillis).isLessThan(60_000);
    }

    @Test
    void madeUpImeisFromOneNetwork_thenAtMostTheBurstPlusTheRate_andTheirKeysAreShortLived() throws Exception {
        int burst = 100;
        int perMinute = 30;
        Duration beforeRecords = Duration.ofSeconds(30);
        InetSocketAddress tcp = start(Map.of("limits.max-new-imeis-burst-per-address", burst,
                "limits.max-new-imeis-per-address-per-minute", perMinute,
                "registry.device-info-ttl-before-records", beforeRecords.toMillis() + "ms"));
        int sprayed = 300;

        long start = System.nanoTime();
        List<Integer> answers = logins(tcp, "127.0.6", 200_000, sprayed);
        double minutes = (System.nanoTime() - start) / 60e9;

        long admitted = answers.stream().filter(a -> a == 0x01).count();
        long bound = burst + (long) Math.ceil(perMinute * minutes);
        LOG.info("spray: {} of {} made-up IMEIs let in over {} s (bound {})", admitted, sprayed,
                String.format("%.1f", minutes * 60), bound);
        assertThat(admitted).isBetween((long) burst, bound);
        long keys = 0;
        long bytes = 0;
        for (int i = 0; i < sprayed; i++) {
            String key = "device:info:" + TestImeis.numbered(200_000 + i);
            long ttl = redisView.redis().pttl(key);
            if (ttl != -2) {
                keys++;
                bytes += redisView.redis().memoryUsage(key);
                assertThat(ttl).as("no record stored: the short TTL").isBetween(1L, beforeRecords.toMillis());
            }
        }
        LOG.info("spray: {} device:info keys, {} bytes of Redis memory (MEMORY USAGE)", keys, bytes);
        assertThat(keys).as("a key only for those let in").isEqualTo(admitted);
    }
}
