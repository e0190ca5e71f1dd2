package org.fleetpipe.teltonika.simulator;

import io.netty.util.ResourceLeakDetector;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import org.fleetpipe.teltonika.simulator.cli.SimulatorCommand;
import org.fleetpipe.teltonika.simulator.cli.SimulatorOptions;
import org.fleetpipe.teltonika.simulator.report.SummaryReport;
import org.fleetpipe.teltonika.simulator.run.Simulation;
import picocli.CommandLine;

/** {@code java -jar device-simulator.jar}: simulated Teltonika trackers and a closed-loop load tool. */
public final class SimulatorMain {

    /** Picocli's exit code for a bad argument (its message and the usage go to stderr). */
    public static final int EXIT_USAGE = CommandLine.ExitCode.USAGE;

    private SimulatorMain() {
    }

    public static void main(String[] args) {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty's default samples one buffer in 128 with a stack trace: a load tool's CPU for
            // nothing (the tests run it paranoid).
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command line and returns the exit code: 0 after {@code --help} (the usage on
     * {@code out}), {@link #EXIT_USAGE} after a bad argument, else the run's (see the usage's footer).
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        SimulatorCommand command = new SimulatorCommand();
        return command.commandLine()
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .setExecutionStrategy(parsed -> {
                    Integer help = CommandLine.executeHelpRequest(parsed);
                    return help != null ? help : simulate(command.options(), out);
                })
                .execute(args);
    }

    private static int simulate(SimulatorOptions options, PrintStream out) {
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
        } catch (InterruptedException e) {
            // Nothing interrupts main; were it to, the run did not finish: not every record is known acknowledged.
            Thread.currentThread().interrupt();
            return SummaryReport.EXIT_UNACKNOWLEDGED;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it waits for the summary printed above.
            }
        }
    }
}
