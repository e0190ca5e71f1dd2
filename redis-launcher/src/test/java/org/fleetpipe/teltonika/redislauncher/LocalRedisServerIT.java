package org.fleetpipe.teltonika.redislauncher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetpipe.teltonika.redislauncher.LocalRedisServer.Binary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

class LocalRedisServerIT {

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<RedisClient> clients = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (RedisClient client : clients) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    @Test
    void start_whenEmbeddedBinaryForced_thenAnswersPingThroughLettuce() {
        LocalRedisServer server = embeddedServer().start();

        assertThat(server.binary().source()).isEqualTo(Binary.Source.EMBEDDED);
        assertThat(server.binary().description()).startsWith("embedded redis-server-");
        assertThat(server.isRunning()).isTrue();
        assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
            assertThat(connection.sync().info("server")).contains("redis_version:6.2");
        }
    }

    @Test
    void start_whenRunning_thenWorksInAnEmptyDirectoryOfItsOwnThatStopRemoves() throws IOException {
        LocalRedisServer server = embeddedServer().start();
        Path dir;
        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            dir = Path.of(connection.sync().configGet("dir").get("dir"));
            // What a replica or a primary feeding one does: writes dump.rdb into its directory.
            connection.sync().save();
        }

        // Not the JVM's working directory, where a stray dump.rdb would be loaded at start.
        assertThat(dir.toRealPath()).isNotEqualTo(Path.of("").toAbsolutePath().toRealPath());
        assertThat(dir.resolve("dump.rdb")).exists();
        server.stop();
        assertThat(dir).doesNotExist();
    }

    @Test
    void start_thenFeedsANewReplicaAtOnce_withoutRedisSevensFiveSecondWaitForOthers() {
        LocalRedisServer server = embeddedServer().start();
        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            assertThat(connection.sync().configGet("repl-diskless-sync-delay"))
                    .containsEntry("repl-diskless-sync-delay", "0");
        }
    }

    @Test
    void start_whenAlreadyRunning_thenKeepsTheSameProcess() {
        LocalRedisServer server = embeddedServer().start();
        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            connection.sync().set("k", "v");

            server.start();

            assertThat(connection.sync().get("k")).isEqualTo("v");
        }
    }

    @Test
    void stop_whenRunning_thenNewConnectionsFail() {
        LocalRedisServer server = embeddedServer().start();
        RedisClient client = client(server);

        server.stop();

        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(client::connect).isInstanceOf(RedisConnectionException.class);
    }

    @Test
    void restart_whenDataWasWritten_thenAnswersOnSamePortWithoutTheData() {
        LocalRedisServer server = embeddedServer().start();
        int port = server.port();
        RedisClient client = client(server);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set("k", "v");
        }

        server.restart();

        assertThat(server.port()).isEqualTo(port);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
            assertThat(connection.sync().dbsize()).isZero();
        }
    }

    @Test
    void start_whenStoppedBefore_thenAnswersAgainOnSamePort() {
        LocalRedisServer server = embeddedServer().start();
        int port = server.port();
        server.stop();

        server.start();

        assertThat(server.port()).isEqualTo(port);
        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }
    }

    @Test
    void start_whenTwoServers_thenEachAnswersOnItsOwnPort() {
        LocalRedisServer first = embeddedServer().start();
        LocalRedisServer second = embeddedServer().start();

        assertThat(first.port()).isNotEqualTo(second.port());
        try (StatefulRedisConnection<String, String> one = client(first).connect();
             StatefulRedisConnection<String, String> two = client(second).connect()) {
            one.sync().set("which", "first");
            two.sync().set("which", "second");

            assertThat(one.sync().get("which")).isEqualTo("first");
            assertThat(two.sync().get("which")).isEqualTo("second");
        }
    }

    @Test
    void start_whenExtraArgIsInvalid_thenMessageContainsProcessOutput() {
        LocalRedisServer server = track(LocalRedisServer.builder()
                .binary(Binary.embedded())
                .args("--no-such-directive", "yes")
                .build());

        assertThatThrownBy(server::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("no-such-directive")
                .hasMessageContaining("Bad directive");
        assertThat(server.isRunning()).isFalse();
    }

    @Test
    void start_whenPasswordGiven_thenOnlyClientsThatGiveItAreServed_andTheUriCarriesIt() {
        LocalRedisServer server = track(LocalRedisServer.builder().binary(Binary.embedded())
                .password("0123456789abcdef").build()).start();

        assertThat(server.uri()).isEqualTo("redis://default:0123456789abcdef@127.0.0.1:" + server.port());
        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }
        RedisURI without = RedisURI.create("redis://127.0.0.1:" + server.port());
        without.setTimeout(Duration.ofSeconds(5));
        RedisClient anonymous = RedisClient.create(without);
        clients.add(anonymous);
        // Lettuce's handshake on connect is refused already.
        assertThatThrownBy(anonymous::connect).hasStackTraceContaining("NOAUTH");
        assertThatThrownBy(() -> LocalRedisServer.builder().password("a@b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void start_whenExtraArgIsValid_thenServerUsesIt() {
        LocalRedisServer server = track(LocalRedisServer.builder()
                .binary(Binary.embedded())
                .args("--maxmemory", "12mb")
                .build()).start();

        try (StatefulRedisConnection<String, String> connection = client(server).connect()) {
            assertThat(connection.sync().configGet("maxmemory")).containsEntry("maxmemory", "12582912");
        }
    }

    @Test
    void start_whenFixedPortIsTaken_thenFailsNamingThePort() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            LocalRedisServer server = track(LocalRedisServer.builder()
                    .binary(Binary.embedded())
                    .port(taken.getLocalPort())
                    .build());

            assertThatThrownBy(server::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + taken.getLocalPort() + " is already in use");
        }
    }

    @Test
    void close_whenRunning_thenNoRedisProcessIsLeftOnItsPort() {
        LocalRedisServer server = embeddedServer().start();
        String portArg = Integer.toString(server.port());

        server.close();
        server.close();

        assertThat(ProcessHandle.current().children()
                .filter(ProcessHandle::isAlive)
                .filter(child -> child.info().arguments().map(List::of).orElse(List.of()).contains(portArg)))
                .isEmpty();
    }

    @Test
    void builder_whenPortIsZero_thenRejectedBecauseRedisWouldNotListen() {
        assertThatThrownBy(() -> LocalRedisServer.builder().port(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void embedded_whenAskedTwice_thenSameExecutableFile() {
        Binary first = Binary.embedded();
        Binary second = Binary.embedded();

        assertThat(second.path()).isEqualTo(first.path());
        assertThat(first.path()).isRegularFile().isExecutable();
    }

    @Test
    void onPath_whenADirectoryHoldsAnExecutableRedisServer_thenFindsIt(@TempDir Path empty, @TempDir Path bin)
            throws IOException {
        Path redisServer = Files.createFile(bin.resolve("redis-server"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));

        Optional<Binary> found = Binary.onPath(empty + java.io.File.pathSeparator + bin);

        assertThat(found).contains(new Binary(redisServer, Binary.Source.PATH));
        assertThat(found.orElseThrow().description()).isEqualTo(redisServer.toString());
    }

    @Test
    void onPath_whenRedisServerIsNotExecutable_thenIgnoresIt(@TempDir Path bin) throws IOException {
        Files.createFile(bin.resolve("redis-server"));

        assertThat(Binary.onPath(bin.toString())).isEmpty();
        assertThat(Binary.onPath(null)).isEmpty();
    }

    private LocalRedisServer embeddedServer() {
        return track(LocalRedisServer.builder().binary(Binary.embedded()).build());
    }

    private LocalRedisServer track(LocalRedisServer server) {
        toClose.add(server);
        return server;
    }

    private RedisClient client(LocalRedisServer server) {
        RedisURI uri = RedisURI.create(server.uri());
        uri.setTimeout(Duration.ofSeconds(5));
        RedisClient client = RedisClient.create(uri);
        clients.add(client);
        return client;
    }
}
