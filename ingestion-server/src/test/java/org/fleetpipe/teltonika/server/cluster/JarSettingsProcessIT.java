package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

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
}
