package org.fleetpipe.teltonika.simulator.cli;

import picocli.CommandLine;
import picocli.CommandLine.MaxValuesExceededException;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Reads the command line into {@link SimulatorOptions} with picocli; every mistake becomes one
 * {@link UsageException} line that names the option and what it expects.
 */
public final class OptionsParser {

    private OptionsParser() {
    }

    public static SimulatorOptions parse(String... args) throws UsageException {
        SimulatorCommand command = new SimulatorCommand();
        CommandLine commandLine = commandLine(command);
        try {
            commandLine.parseArgs(args);
        } catch (ParameterException e) {
            if (commandLine.isUsageHelpRequested()) {
                // --help came before the mistake: the first of the two wins, as it always has.
                throw UsageException.help();
            }
            throw new UsageException(oneLine(e, args));
        }
        if (commandLine.isUsageHelpRequested()) {
            throw UsageException.help();
        }
        if (!commandLine.getUnmatchedArguments().isEmpty()) {
            throw new UsageException(unmatched(commandLine.getUnmatchedArguments().get(0)));
        }
        return command.toOptions();
    }

    /** The simulator's command line, configured to read arguments the way it always has. */
    static CommandLine commandLine(SimulatorCommand command) {
        return OptionValues.register(new CommandLine(command))
                // The last of a repeated option wins, as scripts that append an override expect.
                .setOverwrittenOptionsAllowed(true)
                // The token after an option is its value, even one that starts with "-".
                .setAllowOptionsAsOptionParameters(true)
                // "@name" is a value like any other, not a file of arguments.
                .setExpandAtFiles(false)
                // An unknown argument ends the parse, so it is reported before a bad value after it.
                .setStopAtUnmatched(true)
                // "-hx" is an unknown option, not -h followed by -x.
                .setPosixClusteredShortOptionsAllowed(false);
    }

    /** Picocli's refusal in the simulator's words: the same lines as before picocli read the arguments. */
    private static String oneLine(ParameterException e, String[] args) {
        if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            return unmatched(unmatched.getUnmatched().get(0));
        }
        if (e instanceof MissingParameterException missing && !missing.getMissing().isEmpty()
                && missing.getMissing().get(0) instanceof OptionSpec option) {
            return option.longestName() + " needs a value";
        }
        if (e instanceof MaxValuesExceededException) {
            String flag = flagGivenAValue(e.getCommandLine(), args);
            if (flag != null) {
                return flag + " takes no value";
            }
        }
        if (e.getCause() instanceof TypeConversionException conversion && e.getArgSpec() instanceof OptionSpec option) {
            return option.longestName() + ": " + conversion.getMessage();
        }
        return e.getMessage();
    }

    private static String unmatched(String arg) {
        if (!arg.startsWith("-")) {
            return "unexpected argument '" + arg + "' (options start with --)";
        }
        int eq = arg.indexOf('=');
        return "unknown option " + (eq > 0 ? arg.substring(0, eq) : arg);
    }

    /** The first {@code --flag=value} among {@code args} whose flag takes no value; null if none. */
    private static String flagGivenAValue(CommandLine commandLine, String[] args) {
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                OptionSpec option = commandLine.getCommandSpec().findOption(arg.substring(0, eq));
                if (option != null && option.arity().max() == 0) {
                    return arg.substring(0, eq);
                }
            }
        }
        return null;
    }
}
