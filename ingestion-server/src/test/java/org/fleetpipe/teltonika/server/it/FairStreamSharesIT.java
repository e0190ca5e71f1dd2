package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fair shares of the stream on real sockets, with a consumer group that reads nothing: below
 * TELEMETRY_FAIR_SHARE_FROM (0.8 of the cap by default) nobody is held; past it the heaviest are
 * held, one heavy device or many IMEIs of one network, while devices from other source networks
 * (other /24s of 127.0.0.0/8) keep their ACKs.
 */
@WithRedis
class FairStreamSharesIT {

    private final RandomAvl random = new RandomAvl(42L);
    private RedisFixture fixture;
    private IngestionServer server;
    private SteadyDevices steady;
    private final List<DeviceClient> attackers = new ArrayList<>();
    private ExecutorService pool;

    @BeforeEach
    void stalledGroup(RedisFixture redis) {
        fixture = redis;
        try (StatefulRedisConnection<String, String> c = fixture.client().connect()) {
            c.sync().xgroupCreate(XReadArgs.StreamOffset.from("telemetry", "$"), "downstream",
                    XGroupCreateArgs.Builder.mkstream());
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (steady != null) {
            steady.close();
        }
        synchronized (attackers) {
            for (DeviceClient a : attackers) {
                a.close();
            }
        }
        if (pool != null) {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }

    private InetSocketAddress start(Map<String, Object> settings) throws Exception {
        Map<String, Object> all = new HashMap<>(Map.of("telemetry.retention.interval", "100ms"));
        all.putAll(settings);
        server = ItServer.start(fixture, false, all);
        return ItServer.loopback(server.tcpAddress());
    }

    private static InetAddress address(String text) throws IOException {
        return InetAddress.getByName(text);
    }

    private static CompletableFuture<Long> readAckAsync(DeviceClient device) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return device.readAck();
            } catch (IOException e) {
                return -1L;
            }
        });
    }

    private double held(String reason) {
        return ServerMeters.functionCount(server, "teltonika.telemetry.held.reason", "reason", reason);
    }

    private long streamLength() {
        try (StatefulRedisConnection<String, String> c = fixture.client().connect()) {
            return c.sync().xlen("telemetry");
        }
    }

    private double shareHeld() {
        return server.metrics().registry().get("teltonika.telemetry.share.held").functionCounter().count();
    }

    @Test
    void fiveSteadyDevicesBesideAFlooder_thenNobodyHeldBelowTheThreshold_andPastItOnlyTheFlooder() throws Exception {
        // Shares from 2,400 of 3,000 unread entries; the devices' rate budgets out of the way.
        InetSocketAddress tcp = start(Map.of("telemetry.max-unread", 3000, "limits.device-records-per-second", 0,
                "limits.device-bytes-per-second", 0));
        List<InetAddress> sources = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            sources.add(address("127.0.1." + i));
        }
        steady = SteadyDevices.tcpFrom(sources, tcp, LongStream.rangeClosed(1, 5).mapToObj(TestImeis::numbered)
                .toList(), Duration.ofMillis(250), 5);
        long acknowledged = 0;
        try (DeviceClient flooder = DeviceClient.connectFrom(address("127.0.0.1"), tcp)) {
            assertThat(flooder.login(TestImeis.numbered(900))).isEqualTo(0x01);
            CompletableFuture<Long> ack = null;
            for (int i = 0; i < 200; i++) {
                AvlPacket packet = random.packet(CodecId.CODEC_8, 25);
                flooder.send(Frames.avl(packet));
                ack = readAckAsync(flooder);
                CompletableFuture<Long> pending = ack;
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(20))
                        .until(() -> pending.isDone() || shareHeld() > 0);
                if (!ack.isDone()) {
                    break;
                }
                assertThat(ack.get()).isEqualTo(25L);
                acknowledged += 25;
                assertThat(steady.errors()).as("the steady devices' ACKs while the flooder is at %d", acknowledged)
                        .isEmpty();
            }
            assertThat(ack).as("the flooder's packet is held").isNotDone();
            assertThat(streamLength()).as("nobody is held below 2,400 entries unread (the old 1 %% share held at 30)")
                    .isBetween(2_300L, 2_900L);
            assertThat(acknowledged).as("the flooder got what the steady devices left of the 2,400")
                    .isGreaterThanOrEqualTo(1_000);

            // Past the threshold the room up to the cap stays for the devices within their share.
            steady.assertServed(40);
            assertThat(ack).isNotDone();
            assertThat(held("device-share")).isPositive();
            assertThat(held("stream-full")).isZero();
            assertThat(ServerMeters.gauge(server, "teltonika.telemetry.backpressure")).as("the stream is not full")
                    .isZero();
        }
    }

    @Test
    void manyImeisFromOneNetwork_thenHeldAtTheirNetworksShare_andADeviceFromAnotherNetworkKeepsItsAcks()
            throws Exception {
        int imeis = 120;
        int records = 10;
        // 1,200 records against a cap of 1,000 (shares from 800); every IMEI is new to the fleet.
        InetSocketAddress tcp = start(Map.of("telemetry.max-unread", 1000,
                "limits.max-new-imeis-per-address-per-minute", 0, "limits.max-pre-login-connections-per-address", 0,
                "limits.max-accepts-per-network-per-second", 0));
        steady = SteadyDevices.tcpFrom(List.of(address("127.0.2.1")), tcp, List.of(TestImeis.numbered(1)),
                Duration.ofMillis(250), 5);
        InetAddress attack = address("127.0.0.1");
        AtomicLong acknowledged = new AtomicLong();
        // Per attacker: -1 done, 0 busy, else System.nanoTime() when it began waiting for an ACK.
        AtomicLongArray waitingSince = new AtomicLongArray(imeis);
        pool = Executors.newFixedThreadPool(imeis);
        for (int d = 0; d < imeis; d++) {
            int device = d;
            pool.execute(() -> {
                try {
                    DeviceClient client = DeviceClient.connectFrom(attack, tcp);
                    synchronized (attackers) {
                        attackers.add(client);
                    }
                    if (client.login(TestImeis.numbered(10_000 + device)) != 0x01) {
                        return;
                    }
                    RandomAvl own = new RandomAvl(device);
                    for (int i = 0; i < records; i++) {
                        client.send(Frames.avl(own.packet(CodecId.CODEC_8, 1)));
                        waitingSince.set(device, System.nanoTime());
                        if (client.readAck() != 1) {
                            return;
                        }
                        waitingSince.set(device, 0);
                        acknowledged.incrementAndGet();
                    }
                } catch (IOException closed) {
                    // the test is over, or the server gave up a held packet
                } finally {
                    waitingSince.set(device, -1);
                }
            });
        }
        // The attack settles: each IMEI has sent its records or waits for an ACK it does not get.
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            long now = System.nanoTime();
            for (int d = 0; d < imeis; d++) {
                long since = waitingSince.get(d);
                if (since != -1 && (since == 0 || now - since < TimeUnit.MILLISECONDS.toNanos(1_000))) {
                    return false;
                }
            }
            return true;
        });

        steady.assertServed(8);
        assertThat(acknowledged.get()).as("the network held near its share, below the cap")
                .isLessThan((long) imeis * records).isLessThanOrEqualTo(1_000);
        assertThat(held("network-share")).isPositive();
        assertThat(ServerMeters.gauge(server, "teltonika.telemetry.backpressure")).as("the stream is not full")
                .isZero();
    }
}
