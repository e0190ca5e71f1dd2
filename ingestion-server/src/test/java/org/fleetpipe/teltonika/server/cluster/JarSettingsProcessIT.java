package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings as an operator types them, into the real jar: the refusal line and exit code, and LOG_FORMAT's case. */
@WithRedis
class JarSettingsProcessIT {

    @Test
    void jar_whenTcpPortIsNotANumber_thenExits2WithOneLineNamingVariableValueAndKey(RedisFixture redis)
            throws Exception {
        try (ServerProcess server = ServerProcess.launch(ServerProcess.JAR,
                Map.of("REDIS_URL", redis.uri(), "TCP_PORT", "abc"))) {
            int exit = server.awaitExit(Duration.ofSeconds(30));

            assertThat(exit).as("%s", server.output()).isEqualTo(2);
            assertThat(server.output()).filteredOn(l -> !l.contains("Picked up")).containsExactly(
                    "configuration error: TCP_PORT=abc (teltonika.server.tcp-port): must be a whole number in 0..65535");
        }
    }

    @Test
    void jar_whenMaxConnectionsDoNotFitTheHeap_thenExits2NamingWhatFits(RedisFixture redis) throws Exception {
        try (ServerProcess server = ServerProcess.launch(ServerProcess.JAR, Map.of("REDIS_URL", redis.uri(),
                "MAX_CONNECTIONS", "50000", "JDK_JAVA_OPTIONS", "-Xmx64m"))) {
            int exit = server.awaitExit(Duration.ofSeconds(30));

            assertThat(exit).as("%s", server.output()).isEqualTo(2);
            assertThat(server.output()).filteredOn(l -> !l.contains("Picked up")).singleElement().asString()
                    .startsWith("configuration error: MAX_CONNECTIONS=50000 (teltonika.server.limits.max-connections)")
                    .contains("connections need about 781 MiB of heap").contains("at most ");
        }
    }

    @Test
    void jar_whenShutdownGraceIsABareNumber_thenExits2AskingForAUnit(RedisFixture redis) throws Exception {
        try (ServerProcess server = ServerProcess.launch(ServerProcess.JAR,
                Map.of("REDIS_URL", redis.uri(), "SHUTDOWN_GRACE", "10"))) {
            int exit = server.awaitExit(Duration.ofSeconds(30));

            assertThat(exit).isEqualTo(2);
            assertThat(server.output()).filteredOn(l -> !l.contains("Picked up")).singleElement().asString()
                    .startsWith("configuration error: SHUTDOWN_GRACE=10 (teltonika.server.shutdown.grace): needs a unit");
        }
    }

    @Test
    void jar_whenLogFormatIsUpperCaseJson_thenLogsTheReadyLineAsJson(RedisFixture redis) throws Exception {
        try (ServerProcess server = ServerProcess.launch(ServerProcess.JAR,
                Map.of("REDIS_URL", redis.uri(), "LOG_FORMAT", "JSON"))) {
            server.awaitLog("ready:", Duration.ofSeconds(60));

            assertThat(server.output()).filteredOn(l -> l.contains("ready:")).singleElement().asString()
                    .startsWith("{").contains("\"level\":\"INFO\"").contains("\"formattedMessage\":\"ready: instance=");
        }
    }

    /**
     * The image's class-archive step (deploy/Dockerfile): the warm-up alone, without Redis, trains an
     * archive that the JVM then maps (-Xshare:on fails when it cannot).
     */
    @Test
    void jar_warmUpOnly_withoutRedis_trainsAClassArchiveTheJvmThenMaps(@TempDir Path dir) throws Exception {
        Path archive = dir.resolve("server.jsa");
        Run training = java("-XX:ArchiveClassesAtExit=" + archive, "-jar", ServerProcess.JAR.toString(), "--warm-up-only");
        assertThat(training.exit()).as("%s", training.output()).isZero();
        assertThat(training.output()).anyMatch(l -> l.startsWith("warm-up only: 2000 packets"));
        assertThat(archive).isNotEmptyFile();

        Run mapped = java("-XX:SharedArchiveFile=" + archive, "-Xshare:on", "-jar", ServerProcess.JAR.toString(),
                "--warm-up-only");
        assertThat(mapped.exit()).as("%s", mapped.output()).isZero();
    }

    private record Run(int exit, List<String> output) {
    }

    private static Run java(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("REDIS_URL");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().put("WARM_UP_PACKETS", "2000");
        Process process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8).lines().toList());
    }
}
