package org.fleetpipe.teltonika.simulator;

import io.netty.util.ResourceLeakDetector;
import java.io.PrintStream;
import java.time.Duration;
import org.fleetpipe.teltonika.simulator.cli.OptionsParser;
import org.fleetpipe.teltonika.simulator.cli.SimulatorOptions;
import org.fleetpipe.teltonika.simulator.cli.Usage;
import org.fleetpipe.teltonika.simulator.cli.UsageException;
import org.fleetpipe.teltonika.simulator.run.Simulation;

/** {@code java -jar device-simulator.jar}: simulated Teltonika trackers and a closed-loop load tool. */
public final class SimulatorMain {

    public static final int EXIT_USAGE = 2;

    private SimulatorMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty's default samples one buffer in 128 with a stack trace: a load tool's CPU for
            // nothing (the tests run it paranoid).
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit code (see {@link Usage}). */
    public static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
        SimulatorOptions options;
        try {
            options = OptionsParser.parse(args);
        } catch (UsageException e) {
            if (e.helpRequested()) {
                out.print(Usage.text());
                return 0;
            }
            err.println("device-simulator: " + e.getMessage());
            err.println();
            err.print(Usage.text());
            return EXIT_USAGE;
        }
        Simulation simulation = new Simulation(options, out);
        // Ctrl-C still prints the summary: stop sending, then let run() finish its report.
        Duration grace = options.drain().plusSeconds(15);
        Thread stopper = new Thread(() -> {
            simulation.requestStop();
            try {
                simulation.awaitFinished(grace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "simulator-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        try {
            return simulation.run().exitCode();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it waits for the summary printed above.
            }
        }
    }
}
