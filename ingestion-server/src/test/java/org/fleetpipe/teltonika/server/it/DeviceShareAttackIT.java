package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * One logged-in device that floods, on real sockets, beside steady devices that must keep every
 * ACK: past its share of the stream's budget it is held alone (readiness stays 200), and past its
 * rate budget its packets wait while the others' do not.
 */
@WithRedis
class DeviceShareAttackIT {

    private static final String FLOODER = TestImeis.numbered(900);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final RandomAvl random = new RandomAvl(31L);
    private RedisFixture fixture;
    private IngestionServer server;
    private SteadyDevices steady;

    @BeforeEach
    void fixture(RedisFixture redis) {
        fixture = redis;
    }

    @AfterEach
    void stop() throws Exception {
        if (steady != null) {
            steady.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private InetSocketAddress start(Map<String, Object> settings) throws Exception {
        Map<String, Object> all = new HashMap<>(Map.of("telemetry.retention.interval", "100ms"));
        all.putAll(settings);
        server = ItServer.start(fixture, false, all);
        InetSocketAddress tcp = ItServer.loopback(server.tcpAddress());
        steady = SteadyDevices.tcp(tcp, LongStream.rangeClosed(1, 5).mapToObj(TestImeis::numbered).toList(),
                Duration.ofMillis(50));
        return tcp;
    }

    private static CompletableFuture<Long> readAckAsync(DeviceClient device) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return device.readAck();
            } catch (java.io.IOException e) {
                return -1L;
            }
        });
    }

    @Test
    void deviceFillingTheStreamWhileTheGroupDoesNotRead_thenHeldAloneAtItsShare_othersAcknowledged_stillReady()
            throws Exception {
        try (StatefulRedisConnection<String, String> c = fixture.client().connect()) {
            c.sync().xgroupCreate(XReadArgs.StreamOffset.from("telemetry", "$"), "downstream",
                    XGroupCreateArgs.Builder.mkstream());
        }
        // 2,000 unread entries in all, shares from 400; the devices' rate budgets out of the way.
        InetSocketAddress tcp = start(Map.of("telemetry.max-unread", 2000,
                "telemetry.backpressure.fair-share-from", 0.2, "limits.device-records-per-second", 0,
                "limits.device-bytes-per-second", 0));
        long acknowledged = 0;
        try (DeviceClient flooder = DeviceClient.connect(tcp)) {
            assertThat(flooder.login(FLOODER)).isEqualTo(0x01);
            CompletableFuture<Long> ack;
            while (true) {
                AvlPacket packet = random.packet(CodecId.CODEC_8, 25);
                flooder.send(Frames.avl(packet));
                ack = readAckAsync(flooder);
                CompletableFuture<Long> pending = ack;
                await().atMost(Duration.ofSeconds(20)).until(() -> pending.isDone() || shareHeld() > 0);
                if (!ack.isDone()) {
                    break;
                }
                assertThat(ack.get()).isEqualTo(25L);
                acknowledged += 25;
                assertThat(acknowledged).as("held near its share, far below the stream's cap").isLessThanOrEqualTo(450);
            }
            assertThat(acknowledged).as("nobody is held below the point where shares apply").isGreaterThanOrEqualTo(250);

            // The others keep their ACKs while the flooder waits, and the pod stays in the Service.
            steady.assertServed(40);
            assertThat(ack).as("the flooder's packet is still held").isNotDone();
            assertThat(ServerMeters.gauge(server, "teltonika.telemetry.backpressure")).as("the stream is not full")
                    .isZero();
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.httpAddress().getPort() + "/health/ready")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void deviceSendingAheadFasterThanItsRateBudget_thenItsAcksComeAtTheRate_othersAtOnce() throws Exception {
        InetSocketAddress tcp = start(Map.of("limits.device-records-per-second", 100,
                "limits.device-records-burst", 300));
        int packets = 24;
        try (DeviceClient flooder = DeviceClient.connect(tcp)) {
            assertThat(flooder.login(FLOODER)).isEqualTo(0x01);
            long start = System.nanoTime();
            // 600 records sent ahead at once: 300 in the burst, 300 more at 100 a second.
            for (int i = 0; i < packets; i++) {
                flooder.send(Frames.avl(random.packet(CodecId.CODEC_8, 25)));
            }
            for (int i = 0; i < packets; i++) {
                assertThat(flooder.readAck()).isEqualTo(25L);
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(tookMillis).as("the 300 records past the burst took their 3 s").isGreaterThanOrEqualTo(2_500);
        }
        assertThat(ServerMeters.count(server, "teltonika.device.rate.limited", "action", "delayed")).isPositive();
        steady.assertServed(40);
    }

    private double shareHeld() {
        return server.metrics().registry().get("teltonika.telemetry.share.held").functionCounter().count();
    }
}
