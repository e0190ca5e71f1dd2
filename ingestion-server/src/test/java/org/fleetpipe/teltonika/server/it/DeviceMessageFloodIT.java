package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.command.CommandDispatcher;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A logged-in device that floods Codec 13 messages and unsolicited replies against a real server on
 * loopback: a few per minute are stored, their text cut, a log line or two written, the frames
 * handled one after the other behind their writes; steady devices keep their ACKs.
 */
@WithRedis
class DeviceMessageFloodIT {

    private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(DeviceMessageFloodIT.class);
    private static final int PER_MINUTE = 5;
    private static final int MAX_TEXT = 64;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger dispatcherLog = (Logger) LoggerFactory.getLogger(CommandDispatcher.class);
    private IngestionServer server;
    private TelemetryStream redisView;
    private SteadyDevices steady;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("limits.max-device-messages-per-minute", PER_MINUTE,
                "limits.max-device-message-text-bytes", MAX_TEXT));
        redisView = new TelemetryStream(redis);
        steady = SteadyDevices.tcp(ItServer.loopback(server.tcpAddress()),
                LongStream.rangeClosed(1, 3).mapToObj(TestImeis::numbered).toList(), Duration.ofMillis(50));
        log.start();
        dispatcherLog.addAppender(log);
    }

    @AfterEach
    void stop() throws Exception {
        dispatcherLog.detachAppender(log);
        steady.close();
        redisView.close();
        server.close();
    }

    private static byte[] codec13(String text) {
        return Frames.command(new CommandFrame(CodecId.CODEC_13, CommandFrame.TYPE_RESPONSE, null,
                System.currentTimeMillis() / 1000, text.getBytes(StandardCharsets.US_ASCII)));
    }

    private List<StreamMessage<String, String>> messages() {
        return redisView.redis().xrange("device:messages", Range.create("-", "+"));
    }

    @Test
    void pacedFlood_thenAFewStoredTruncated_restDroppedAndCounted_logBounded_andTheDeviceStaysServed()
            throws Exception {
        char[] long1000 = new char[1_000];
        Arrays.fill(long1000, 'x');
        String text = new String(long1000);
        String imei = TestImeis.numbered(700);
        try (DeviceClient flooder = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(flooder.login(imei)).isEqualTo(0x01);
            for (int i = 0; i < 100; i++) {
                flooder.send(i % 2 == 0 ? codec13(text) : Frames.command(CommandFrame.codec12Response(text)));
                Thread.sleep(10);
            }
            // Handled in order behind the messages' writes: its ACK means every message before it is done.
            assertThat(flooder.sendAndReadAck(Frames.avl(new RandomAvl(7L).packet(CodecId.CODEC_8, 3))))
                    .isEqualTo(3);

            assertThat(messages()).hasSize(PER_MINUTE).allSatisfy(m -> {
                assertThat(m.getBody().get("imei")).isEqualTo(imei);
                assertThat(m.getBody().get("text")).hasSize(MAX_TEXT);
            });
            assertThat(ServerMeters.count(server, "teltonika.commands", "outcome", "device-message-dropped"))
                    .isEqualTo(100 - PER_MINUTE);
            assertThat(flooder.closedByServer()).isFalse();
        }
        assertThat(log.list).filteredOn(e -> e.getFormattedMessage().contains(imei))
                .as("log lines about the flooder").hasSizeLessThanOrEqualTo(1);
        steady.assertServed(10);
    }

    @Test
    void burstFlood_thenBoundedByTheFrameQueueOrTheBudget_andStillOnlyAFewStored() throws Exception {
        String imei = TestImeis.numbered(701);
        try (DeviceClient flooder = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(flooder.login(imei)).isEqualTo(0x01);
            byte[] one = codec13("y".repeat(200));

            try {
                flooder.send(Frames.repeat(one, 500));
            } catch (java.io.IOException closed) {
                // the server may close while the burst is still being written
            }

            // Whichever bound applies first: more than MAX_QUEUED_FRAMES in one read closes the
            // connection; otherwise every message beyond the budget is dropped.
            await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.count(server,
                    "teltonika.connections.closed", "reason", "too-many-queued-frames") == 1
                    || ServerMeters.count(server, "teltonika.commands", "outcome", "device-message-dropped")
                    + messages().size() == 500);
        }
        LOG.info("burst of 500 messages: closed on the frame queue {}, dropped {}, stored {}",
                ServerMeters.count(server, "teltonika.connections.closed", "reason", "too-many-queued-frames"),
                ServerMeters.count(server, "teltonika.commands", "outcome", "device-message-dropped"),
                messages().size());
        assertThat(messages()).hasSizeLessThanOrEqualTo(PER_MINUTE);
        steady.assertServed(10);
    }
}
