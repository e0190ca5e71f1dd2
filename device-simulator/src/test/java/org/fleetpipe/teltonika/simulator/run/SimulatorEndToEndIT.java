package org.fleetpipe.teltonika.simulator.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.simulator.cli.SimulatorCommand;
import org.fleetpipe.teltonika.simulator.report.StatsSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The simulator against the real ingestion server in-process and a real Redis: every ACK means a stream entry. */
@WithRedis
class SimulatorEndToEndIT {

    private final RedisFixture redis;
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private IngestionServer server;

    SimulatorEndToEndIT(RedisFixture redis) {
        this.redis = redis;
    }

    @BeforeEach
    void startServer() throws Exception {
        // udp-port 0 means "UDP off", so a free UDP port is picked here; another process could take
        // it in between, hence a few attempts. TCP and HTTP bind to any free port (0). The UDP
        // devices never log in over TCP: UDP_ADMISSION=any lets them in.
        RuntimeException last = null;
        for (int attempt = 0; attempt < 3 && server == null; attempt++) {
            try {
                server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(),
                        "bind-address", "127.0.0.1", "tcp-port", 0, "udp-port", freeUdpPort(),
                        "http-port", 0, "health-port", 0, "admission.udp", "any"))).start();
            } catch (RuntimeException e) {
                last = e;
            }
        }
        if (server == null) {
            throw last;
        }
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void twentyTcpDevices_everyRecordAcknowledgedAndInTheStream() throws Exception {
        RunResult result = simulate("--port", port(server.tcpAddress().getPort()), "--devices", "20",
                "--interval", "100ms", "--records", "5", "--max-packets", "5", "--codec", "mixed",
                "--duration", "30s", "--progress", "1s");

        assertEveryRecordAcknowledgedAndStored(result, 20 * 5 * 5);
        assertThat(result.stats().connected()).as("closed at the end").isZero();
    }

    @Test
    void twentyUdpDevices_everyRecordAcknowledgedAndInTheStream() throws Exception {
        RunResult result = simulate("--transport", "udp", "--port", port(server.udpAddress().getPort()),
                "--devices", "20", "--interval", "100ms", "--records", "5", "--max-packets", "5", "--codec", "mixed",
                "--duration", "30s", "--progress", "1s");

        assertEveryRecordAcknowledgedAndStored(result, 20 * 5 * 5);
    }

    @Test
    void loadMode_fiftyConnections_reportsARateAndLatencies() throws Exception {
        RunResult result = simulate("--port", port(server.tcpAddress().getPort()), "--load", "--connections", "50", "--records", "10", "--codec", "8E",
                "--duration", "3s", "--progress", "1s");

        StatsSnapshot stats = result.stats();
        assertThat(result.exitCode()).as(text()).isZero();
        assertThat(stats.recordsPerSecond()).isPositive();
        assertThat(result.latency().getTotalCount()).isEqualTo(stats.packetsAcknowledged()).isPositive();
        assertThat(text()).contains("records/s acknowledged", "p99.9");
        assertThat(xlen()).isEqualTo(stats.recordsAcknowledged());
    }

    private void assertEveryRecordAcknowledgedAndStored(RunResult result, long records) {
        StatsSnapshot stats = result.stats();
        assertThat(result.exitCode()).as(text()).isZero();
        assertThat(stats.recordsGenerated()).isEqualTo(records);
        assertThat(stats.recordsAcknowledged()).isEqualTo(records);
        assertThat(stats.ackMismatches()).isZero();
        assertThat(xlen()).as("one stream entry per acknowledged record").isEqualTo(stats.recordsAcknowledged());
        assertThat(text()).contains("result       OK: every record acknowledged");
    }

    private RunResult simulate(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--host", "127.0.0.1", "--ack-timeout", "5s", "--backoff-min", "100ms",
                "--backoff-max", "1s", "--drain", "10s"));
        return new Simulation(SimulatorCommand.parse(all.toArray(String[]::new)),
                new PrintStream(output, true, StandardCharsets.UTF_8)).run();
    }

    private long xlen() {
        try (StatefulRedisConnection<String, String> c = redis.client().connect()) {
            return c.sync().xlen("telemetry");
        }
    }

    private String text() {
        return output.toString(StandardCharsets.UTF_8);
    }

    private static String port(int port) {
        return Integer.toString(port);
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
