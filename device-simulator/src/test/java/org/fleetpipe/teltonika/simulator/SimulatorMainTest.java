package org.fleetpipe.teltonika.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SimulatorMainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws InterruptedException {
        return SimulatorMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void run_withABadArgument_thenExit2WithTheReasonAndTheUsage() throws Exception {
        assertThat(run("--codec", "9")).isEqualTo(SimulatorMain.EXIT_USAGE);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text).startsWith("device-simulator: --codec: expected 8, 8E, 16 or mixed, got '9'")
                .contains("usage: java -jar device-simulator.jar");
        assertThat(out.size()).isZero();
    }

    @Test
    void run_withARemoteHost_thenRefusedBeforeAnythingIsSent() throws Exception {
        assertThat(run("--host", "203.0.113.7")).isEqualTo(SimulatorMain.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not a loopback address");
    }

    @Test
    void run_help_thenExit0WithTheUsageOnStdout() throws Exception {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--load", "--max-packets", "Exit code");
    }
}
