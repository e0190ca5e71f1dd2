package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.junit.jupiter.api.Test;

/**
 * The README's run command as a user types it: the shaded jar, no REDIS_URL (so it starts its
 * embedded Redis), a device session, then SIGTERM. Runs after {@code package}, so the jar exists.
 */
class ServerJarProcessIT {

    @Test
    void jar_withoutRedisUrl_startsEmbeddedRedis_acksAPacket_andStopsCleanlyOnSigterm() throws Exception {
        assertThat(ServerProcess.JAR).as("the shaded jar built by package").exists();
        int redisPort = ServerProcess.freePort();
        try (ServerProcess server = ServerProcess.start(Map.of("EMBEDDED_REDIS_PORT", Integer.toString(redisPort)))) {
            String redisUrl = server.output().stream().filter(l -> l.contains("embedded Redis"))
                    .map(l -> l.replaceAll(".*export REDIS_URL=(\\S+) .*", "$1")).findFirst().orElseThrow();
            assertThat(redisUrl).as("the URL the log gives, password and port")
                    .matches("redis://default:[0-9a-f]{32}@127\\.0\\.0\\.1:" + redisPort);
            assertThat(server.output()).filteredOn(l -> l.contains(redisUrl)).as("the password is shown once")
                    .hasSize(1);
            assertThat(server.output()).anySatisfy(l -> assertThat(l).contains("ready:")
                    .contains(":" + server.tcpPort).contains(":" + server.httpPort));

            try (DeviceClient device = DeviceClient.connect(server.tcpPort)) {
                assertThat(device.login("352093081452251")).isEqualTo(1);
                assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
            }
            assertThat(httpStatus(server.httpPort, "/health/ready")).isEqualTo(200);
            assertThat(unauthenticatedPing(redisPort)).as("without the password").startsWith("-NOAUTH");
            Path redisDir = redisWorkingDirectory(redisUrl);
            assertThat(redisDir).isDirectory();

            server.terminate();
            assertThat(server.process().waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s: %s", server.output())
                    .isTrue();
            server.awaitLog("stopped:", Duration.ofSeconds(5));
            assertThat(portAccepts(redisPort)).as("the embedded redis-server stopped with the server").isFalse();
            // Removed on a SIGTERM too, where the server's stop races the launcher's own shutdown hook.
            assertThat(redisDir).as("the embedded redis-server's own directory").doesNotExist();
        }
    }

    private static String unauthenticatedPing(int port) throws java.io.IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readNBytes(7), java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    private static Path redisWorkingDirectory(String url) {
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return Path.of(connection.sync().configGet("dir").get("dir"));
        } finally {
            client.shutdown();
        }
    }

    private static boolean portAccepts(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    static int httpStatus(int port, String path) throws java.io.IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                .openConnection();
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }
}
