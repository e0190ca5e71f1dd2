package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.fleetpipe.teltonika.redislauncher.LoopbackPorts;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server against a Redis and a sentinel that both require a password, as the development overlay
 * runs them: the one password of the {@code redis-sentinel://:password@...} URL logs in to the
 * sentinel and to the primary it names.
 */
class PasswordedSentinelIT {

    private static final String PASSWORD = "dev-overlay-secret-0123456789";

    @TempDir
    Path dir;

    @Test
    void aSentinelURLWithAPassword_logsInToTheSentinelAndToThePrimary() throws Exception {
        List<AutoCloseable> open = new ArrayList<>();
        try {
            LocalRedisServer primary = LocalRedisServer.builder().password(PASSWORD).build().start();
            open.add(primary);
            int sentinelPort = LoopbackPorts.free();
            Path config = dir.resolve("sentinel.conf");
            Files.writeString(config, "sentinel monitor mymaster 127.0.0.1 " + primary.port() + " 1\n"
                    + "sentinel auth-pass mymaster " + PASSWORD + "\n");
            LocalRedisServer sentinel = LocalRedisServer.builder().port(sentinelPort).configFile(config)
                    .password(PASSWORD).args("--sentinel").build().start();
            open.add(sentinel);
            RedisClient probe = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(sentinelPort)
                    .withPassword(PASSWORD.toCharArray()).build());
            try (var connection = probe.connectSentinel()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> ((InetSocketAddress) connection.sync()
                        .getMasterAddrByName("mymaster")).getPort() == primary.port());
            } finally {
                probe.shutdown();
            }

            try (IngestionServer server = new IngestionServer(SettingsLoader.load(Map.of(
                    "redis.url", "redis-sentinel://:" + PASSWORD + "@127.0.0.1:" + sentinelPort + "/0#mymaster",
                    "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0,
                    "bind-address", "127.0.0.1"))).start();
                 DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
                assertThat(device.login(TestImeis.WIKI)).isEqualTo(1);
                assertThat(device.sendAndReadAck(Frames.avl(new RandomAvl(7).packet(CodecId.CODEC_8, 3))))
                        .isEqualTo(3);
            }
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }
}
