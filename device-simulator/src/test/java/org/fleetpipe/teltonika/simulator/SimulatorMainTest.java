package org.fleetpipe.teltonika.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SimulatorMainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SimulatorMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void run_withABadArgument_thenExit2WithTheReasonAndTheUsage() {
        assertThat(run("--codec", "9")).isEqualTo(SimulatorMain.EXIT_USAGE).isEqualTo(2);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("--codec", "expected 8, 8E, 16 or mixed, got '9'")
                .contains("usage: java -jar device-simulator.jar");
        assertThat(out.size()).isZero();
    }

    @Test
    void run_withABoundBroken_thenExit2WithTheReasonAndTheUsage() {
        assertThat(run("--records", "0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("--records must be 1..255, got 0")
                .contains("usage: java -jar device-simulator.jar");
    }

    @Test
    void run_withARemoteHost_thenRefusedBeforeAnythingIsSent() {
        assertThat(run("--host", "203.0.113.7")).isEqualTo(SimulatorMain.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not a loopback address");
    }

    @Test
    void run_help_thenExit0WithTheUsageOnStdout() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--load", "--max-packets", "Exit code");
        assertThat(run("--help", "--port", "0")).as("help comes first").isZero();
    }
}
