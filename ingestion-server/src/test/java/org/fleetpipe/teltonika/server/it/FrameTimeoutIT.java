package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * FRAME_TIMEOUT on real sockets: a logged-in device that begins a frame and never finishes it is
 * dead-lettered (its bytes so far, reason frame-timeout) and closed; one that finishes a frame sent
 * in pieces within the time is acknowledged, and its connection stays.
 */
@WithRedis
class FrameTimeoutIT {

    private IngestionServer server;
    private StatefulRedisConnection<String, String> connection;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("timeouts.frame", "1s"));
        connection = redis.client().connect();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        server.close();
    }

    @Test
    void aFrameBegunAndNeverFinished_isDeadLetteredAndClosed_aSlowOneFinishedInTime_isAcknowledged()
            throws Exception {
        RandomAvl random = new RandomAvl(61);
        byte[] whole = Frames.avl(random.packet(CodecId.CODEC_8E, 5));
        try (DeviceClient stalled = DeviceClient.connect(ItServer.loopback(server.tcpAddress()));
             DeviceClient slow = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(stalled.login(TestImeis.numbered(61))).isEqualTo(1);
            assertThat(slow.login(TestImeis.numbered(62))).isEqualTo(1);

            stalled.send(Arrays.copyOf(whole, 20));
            int half = whole.length / 2;
            slow.send(Arrays.copyOf(whole, half));
            slow.send(Arrays.copyOfRange(whole, half, whole.length));

            assertThat(slow.readAck()).as("finished within FRAME_TIMEOUT").isEqualTo(5);
            assertThat(stalled.readUntilClosed()).as("no ACK, closed").isEmpty();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                List<String> letters = connection.sync().zrange("dlq:frames", 0, -1);
                assertThat(letters).hasSize(1);
                assertThat(letters.get(0)).contains("\"reason\":\"frame-timeout\"")
                        .contains("\"imei\":\"" + TestImeis.numbered(61) + "\"")
                        .contains("20 bytes of a frame not finished within PT1S");
            });
            assertThat(slow.closedByServer(200)).as("the finished one's connection stays").isFalse();
        }
    }
}
