package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.Unpooled;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Starting and stopping: a failed start leaves nothing behind, a stop ends every device connection. */
@WithRedis
class ServerLifecycleIT {

    /** Closed after each test even if the test closed it already: a second close is harmless (tested below). */
    private IngestionServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void start_whenRedisUnreachable_thenFailsInsteadOfServing(RedisFixture redis) throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }

        assertThatThrownBy(() -> ItServer.start(redis, false,
                Map.of("redis.url", "redis://127.0.0.1:" + closedPort, "redis.command-timeout", "1s")))
                .isInstanceOf(RuntimeException.class);
    }

    @Test
    void close_whenDeviceConnectedAndLoggedIn_thenItsConnectionIsClosed(RedisFixture redis) throws Exception {
        server = ItServer.start(redis);
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);

            server.close();

            assertThat(device.readUntilClosed()).isEmpty();
            assertThat(server.sessions().size()).isZero();
        }
    }

    @Test
    void close_whenCalledTwice_thenSecondIsHarmless(RedisFixture redis) throws Exception {
        server = ItServer.start(redis);
        server.close();

        assertThatCode(server::close).doesNotThrowAnyException();
    }

    @Test
    void start_whenTcpPortTaken_thenThrowsAndStopsWhatItStarted(RedisFixture redis) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Set<Thread> before = nonDaemonThreads();
            ServerSettings settings = SettingsLoader.load(Map.of("redis.url", redis.uri(), "bind-address", "127.0.0.1",
                    "tcp-port", taken.getLocalPort(), "udp-port", 0, "http-port", 0, "health-port", 0));
            IngestionServer failed = new IngestionServer(settings);
            try {
                Throwable thrown = catchThrowable(failed::start);

                assertThat(thrown).as("start on a taken port").isNotNull();
                // Non-daemon event-loop threads left running would keep the JVM from exiting after a failed start.
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                        assertThat(nonDaemonThreads()).as("threads the failed start left running")
                                .isSubsetOf(before));
            } finally {
                failed.close();
            }
        }
    }

    private static Set<Thread> nonDaemonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon() && !t.getName().startsWith("awaitility"))
                .collect(Collectors.toSet());
    }

    /** Holds every write command (the packet scripts among them) in Redis for a while; reads still answer. */
    private static void pauseRedisWrites(TelemetryStream view, int millis) {
        view.redis().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(millis).add("WRITE"));
    }

    @Test
    void close_whenWriteInFlight_thenWaitsForItAndAcksBeforeClosing(RedisFixture redis) throws Exception {
        server = ItServer.start(redis);
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()));
             TelemetryStream view = new TelemetryStream(redis)) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            // So that close() starts while the packet's write is outstanding.
            pauseRedisWrites(view, 1500);
            device.send(GoldenVectors.ofKind("avl").get(0).bytes());
            await().atMost(Duration.ofSeconds(5)).until(() -> view.redis().info("clients")
                    .contains("blocked_clients:1"));

            server.close();

            assertThat(device.readAck()).as("the in-flight packet's ACK").isEqualTo(1);
            assertThat(device.readUntilClosed()).isEmpty();
            assertThat(view.entries()).hasSize(1);
        }
    }

    @Test
    void close_whenUdpWriteInFlight_thenAckSentBeforeUdpStops(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, true, Map.of());
        try (DatagramSocket device = new DatagramSocket(0, InetAddress.getLoopbackAddress());
             TelemetryStream view = new TelemetryStream(redis)) {
            device.setSoTimeout(5_000);
            byte[] datagram = Frames.udp(new UdpPacket(7, 7, TestImeis.WIKI,
                    new RandomAvl(1L).packet(CodecId.CODEC_8, 2)));
            pauseRedisWrites(view, 1500);
            device.send(new DatagramPacket(datagram, datagram.length,
                    ItServer.loopback(server.udpAddress())));
            await().atMost(Duration.ofSeconds(5)).until(() -> view.redis().info("clients")
                    .contains("blocked_clients:1"));

            server.close();

            byte[] buffer = new byte[16];
            DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
            device.receive(reply);
            assertThat(UdpAck.read(Unpooled.wrappedBuffer(buffer, 0, reply.getLength())))
                    .isEqualTo(new UdpAck(7, 7, 2));
        }
    }
}
