package org.fleetpipe.teltonika.simulator.cli;

import picocli.CommandLine.Help.Ansi;

/** The text printed for {@code --help} and after a bad argument, drawn by picocli from {@link SimulatorCommand}. */
public final class Usage {

    // Wide enough for the longest option and its value, "--source-addresses=A,B", beside its help.
    private static final int OPTION_COLUMN = 24;

    private Usage() {
    }

    /** The usage: synopsis, what the simulator does, every option with its default, durations and exit codes. */
    public static String text() {
        return OptionsParser.commandLine(new SimulatorCommand())
                .setUsageHelpLongOptionsMaxWidth(OPTION_COLUMN)
                .getUsageMessage(Ansi.OFF);
    }
}
