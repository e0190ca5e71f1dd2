package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.ExpectedEntries;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis going away is the one failure where acking would lose data: no ACK, close, stay up, and
 * serve again once Redis is back. The extension starts Redis again before the next test.
 */
@WithRedis
class RedisOutageIT {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private IngestionServer server;
    private InetSocketAddress tcp;

    @BeforeEach
    void startServer(RedisFixture redis) throws Exception {
        server = ItServer.start(redis);
        tcp = ItServer.loopback(server.tcpAddress());
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private int readyStatus() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                + "/health/ready")).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void redisStopped_whenPacketArrives_thenNoAckCloseNotReadyAndServesAgainAfterRestart(RedisFixture redis)
            throws Exception {
        RandomAvl random = new RandomAvl(System.nanoTime());
        assertThat(readyStatus()).isEqualTo(200);

        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            redis.stop();
            device.send(Frames.avl(random.packet(CodecId.CODEC_8, 2)));
            assertThat(device.readUntilClosed()).as("no ACK while Redis is down").isEmpty();
        }
        try (DeviceClient device = DeviceClient.connect(tcp)) {
            // The login's registry claim needs Redis: no answer, and the server closes, so the
            // device simply retries later (a 0x00 would tell it that it is refused).
            device.send(Frames.login(TestImeis.WIKI));
            assertThat(device.readUntilClosed()).as("no login answer while Redis is down").isEmpty();
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(readyStatus()).isEqualTo(503));
        // Still accepting connections: the process survived the failed claims.
        try (DeviceClient device = DeviceClient.connect(tcp)) {
            device.send(Frames.login(TestImeis.WIKI));
            assertThat(device.readUntilClosed()).isEmpty();
        }

        redis.start();

        // Lettuce reconnects in the background with back-off; each attempt is a fresh device connection.
        AtomicReference<AvlPacket> acked = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            AvlPacket packet = random.packet(CodecId.CODEC_16, 3);
            try (DeviceClient device = DeviceClient.connect(tcp)) {
                assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
                device.send(Frames.avl(packet));
                assertThat(device.readAck()).isEqualTo(3);
            }
            acked.set(packet);
        });
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(readyStatus()).isEqualTo(200));

        try (TelemetryStream stream = new TelemetryStream(redis)) {
            List<Map<String, String>> stored = stream.entries();
            List<Map<String, String>> expected = ExpectedEntries.of(TestImeis.WIKI, acked.get(), server.instanceId());
            // A write that timed out may still have landed after the reconnect; the acked packet must be there.
            assertThat(stored).map(ExpectedEntries::comparable).as("seed %d", random.seed())
                    .containsSubsequence(expected);
        }
    }
}
