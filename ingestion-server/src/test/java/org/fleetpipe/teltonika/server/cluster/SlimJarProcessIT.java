package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * ingestion-server-slim.jar, the container image's jar: what it leaves out, that it still serves
 * devices with REDIS_URL, and its one-line refusal without. Runs after {@code package}.
 */
@WithRedis
class SlimJarProcessIT {

    @Test
    void slimJar_whenListed_thenNoLauncherNoRedisBinariesAndOnlyTheLinuxEpollNatives() throws Exception {
        List<String> names;
        try (ZipFile jar = new ZipFile(ServerProcess.SLIM_JAR.toFile())) {
            names = jar.stream().map(ZipEntry::getName).toList();
        }

        assertThat(names).contains("org/fleetpipe/teltonika/server/IngestionServerMain.class",
                "org/fleetpipe/teltonika/server/dev/DevelopmentRedis.class", "reference.conf", "env-overrides.conf");
        assertThat(names).noneMatch(n -> n.startsWith("redis-server-"))
                .noneMatch(n -> n.startsWith("redis/embedded/"))
                .noneMatch(n -> n.startsWith("org/fleetpipe/teltonika/redislauncher/"))
                .noneMatch(n -> n.startsWith("org/fleetpipe/teltonika/testkit/"))
                .noneMatch(n -> n.startsWith("org/junit/"));
        assertThat(names).filteredOn(n -> n.startsWith("META-INF/native/") && !n.endsWith("/"))
                .containsExactlyInAnyOrder("META-INF/native/libnetty_transport_native_epoll_x86_64.so",
                        "META-INF/native/libnetty_transport_native_epoll_aarch_64.so");
        // The development jar carries the launcher and its binaries, but nothing made for tests.
        try (ZipFile dev = new ZipFile(ServerProcess.JAR.toFile())) {
            assertThat(dev.getEntry("org/fleetpipe/teltonika/redislauncher/LocalRedisServer.class")).isNotNull();
            assertThat(dev.stream().map(ZipEntry::getName)).anyMatch(n -> n.startsWith("redis-server-"))
                    .noneMatch(n -> n.startsWith("org/fleetpipe/teltonika/testkit/"))
                    .noneMatch(n -> n.startsWith("org/junit/"));
        }
        assertThat(Files.size(ServerProcess.SLIM_JAR)).isLessThan(Files.size(ServerProcess.JAR) / 2);
    }

    @Test
    void slimJar_withoutRedisUrl_thenExits2WithOneLineSayingToSetRedisUrl() throws Exception {
        try (ServerProcess server = ServerProcess.launch(ServerProcess.SLIM_JAR, Map.of())) {
            int exit = server.awaitExit(Duration.ofSeconds(30));

            assertThat(exit).as("%s", server.output()).isEqualTo(2);
            assertThat(server.output()).filteredOn(l -> !l.contains("Picked up")).singleElement().asString()
                    .startsWith("configuration error: REDIS_URL is not set")
                    .contains("no embedded Redis")
                    .contains("set REDIS_URL");
        }
    }

    @Test
    void slimJar_withRedisUrl_thenReadyOnEpollAndAcksAPacket(RedisFixture redis) throws Exception {
        try (ServerProcess server = ServerProcess.launch(ServerProcess.SLIM_JAR, Map.of("REDIS_URL", redis.uri()))) {
            server.awaitLog("ready:", Duration.ofSeconds(60));

            // Linux test machines: the filtered natives still hold the one this machine loads.
            if ("Linux".equals(System.getProperty("os.name")) && List.of("amd64", "aarch64").contains(System.getProperty("os.arch"))) {
                assertThat(server.output()).anySatisfy(l -> assertThat(l).contains("ready:").contains("transport=epoll"));
            }
            try (DeviceClient device = DeviceClient.connect(server.tcpPort)) {
                assertThat(device.login("352093081452251")).isEqualTo(1);
                assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
            }
            assertThat(server.output()).noneMatch(l -> l.contains("embedded Redis"));
        }
    }
}
