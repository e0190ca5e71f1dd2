package org.fleetpipe.teltonika.consumer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The reference consumer's command line as picocli reads it: each option with its help line, default and check. */
@Command(name = "reference-consumer",
        customSynopsis = "usage: java -jar reference-consumer.jar [options]",
        synopsisHeading = "",
        sortOptions = false,
        footer = "Durations: 500ms, 2s, 5m, 1h.",
        usageHelpWidth = 120)
final class ConsumerCommand {

    // Wide enough for the longest option and its value, "--dead-letter-stream=NAME", beside its help.
    private static final int OPTION_COLUMN = 26;

    @Spec
    private CommandSpec spec;

    private String redisUrl;
    private String stream = "telemetry";
    private int partitions;
    private String group = "reference";
    private String consumer = defaultConsumerName();
    private String from = "0";
    private int count = 500;
    private Duration block = Duration.ofSeconds(2);
    private Duration claimIdle = Duration.ofSeconds(60);
    private Duration progress = Duration.ofSeconds(5);
    private Duration untilIdle = Duration.ZERO;
    private Duration duration = Duration.ZERO;
    private long maxEntries;
    private boolean jsonLines;
    private int maxDeliveries = 5;
    private String deadLetterStream;
    private String modelsHash;

    @Option(names = {"--help", "-h"}, usageHelp = true, arity = "0", order = 99, description = "this text")
    private boolean help;

    private ConsumerCommand(Map<String, String> env) {
        redisUrl = env.getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");
    }

    /** Parses {@code args}; {@code env} supplies REDIS_URL. A mistake, or {@code --help}, is an IllegalArgumentException. */
    static ConsumerOptions parse(String[] args, Map<String, String> env) {
        ConsumerCommand command = new ConsumerCommand(env);
        // Arguments are read as before picocli: the last of a repeated option wins, the token after an
        // option is its value, "@name" is no file of arguments, and the parse stops at the first unknown one.
        CommandLine commandLine = new CommandLine(command)
                .setOverwrittenOptionsAllowed(true)
                .setAllowOptionsAsOptionParameters(true)
                .setExpandAtFiles(false)
                .setStopAtUnmatched(true)
                .setPosixClusteredShortOptionsAllowed(false)
                .setUsageHelpLongOptionsMaxWidth(OPTION_COLUMN);
        try {
            commandLine.parseArgs(args);
        } catch (ParameterException e) {
            if (commandLine.isUsageHelpRequested()) {
                // --help came before the mistake: the first of the two wins.
                throw new IllegalArgumentException(usage(commandLine));
            }
            throw refusal(e, commandLine);
        }
        if (commandLine.isUsageHelpRequested()) {
            throw new IllegalArgumentException(usage(commandLine));
        }
        if (!commandLine.getUnmatchedArguments().isEmpty()) {
            throw new IllegalArgumentException("unknown option " + commandLine.getUnmatchedArguments().get(0) + "\n"
                    + usage(commandLine));
        }
        return command.toOptions();
    }

    /** Picocli's refusal in the consumer's words: a missing value is followed by the usage. */
    private static IllegalArgumentException refusal(ParameterException e, CommandLine commandLine) {
        if (e instanceof MissingParameterException missing && !missing.getMissing().isEmpty()
                && missing.getMissing().get(0) instanceof OptionSpec option) {
            return new IllegalArgumentException(option.longestName() + " needs a value\n" + usage(commandLine));
        }
        return new IllegalArgumentException(e.getMessage());
    }

    private static String usage(CommandLine commandLine) {
        return commandLine.getUsageMessage(Ansi.OFF).stripTrailing();
    }

    @Option(names = "--redis-url", paramLabel = "URL", order = 1,
            description = "Redis of the ingestion server (default: $REDIS_URL, else redis://127.0.0.1:6379)")
    void redisUrl(String value) {
        redisUrl = value;
    }

    @Option(names = "--stream", paramLabel = "NAME", order = 2,
            description = "stream to read (default telemetry; put REDIS_NAMESPACE in front if the server has one)")
    void stream(String value) {
        stream = value;
    }

    @Option(names = "--partitions", paramLabel = "N", order = 3,
            description = "how many partition streams the servers write (<stream>:{0}..): default what the"
                    + " servers wrote in <stream>:partitions, else 1 (the one stream)")
    void partitions(String value) {
        partitions = (int) positive("--partitions", value, TelemetryLayout.MAX_PARTITIONS);
    }

    @Option(names = "--group", paramLabel = "NAME", order = 4,
            description = "consumer group, created if missing (default reference)")
    void group(String value) {
        group = value;
    }

    @Option(names = "--consumer", paramLabel = "NAME", order = 5,
            description = "this consumer's name within the group, the same after a restart (default: the hostname)")
    void consumer(String value) {
        consumer = value;
    }

    @Option(names = "--from", paramLabel = "0|$", order = 6,
            description = "where a new group starts: 0 = everything still in the stream (default), $ = new entries"
                    + " only")
    void from(String value) {
        if (!value.equals("0") && !value.equals("$")) {
            throw refusal("--from must be 0 or $, got " + value);
        }
        from = value;
    }

    @Option(names = "--count", paramLabel = "N", order = 7, description = "entries per XREADGROUP (default 500)")
    void count(String value) {
        count = (int) positive("--count", value, 100_000);
    }

    @Option(names = "--block", paramLabel = "DURATION", order = 8,
            description = "how long one XREADGROUP waits for new entries (default 2s)")
    void block(String value) {
        block = duration("--block", value);
    }

    @Option(names = "--claim-idle", paramLabel = "DURATION", order = 9,
            description = "take over entries another consumer left unacknowledged this long (default 60s)")
    void claimIdle(String value) {
        claimIdle = duration("--claim-idle", value);
    }

    @Option(names = "--progress", paramLabel = "DURATION", order = 10,
            description = "progress line period, 0 = none (default 5s)")
    void progress(String value) {
        progress = duration("--progress", value);
    }

    @Option(names = "--until-idle", paramLabel = "DURATION", order = 11,
            description = "stop when nothing new arrived for this long (default: never)")
    void untilIdle(String value) {
        untilIdle = duration("--until-idle", value);
    }

    @Option(names = "--duration", paramLabel = "DURATION", order = 12,
            description = "stop after this long (default: never)")
    void duration(String value) {
        duration = duration("--duration", value);
    }

    @Option(names = "--max-entries", paramLabel = "N", order = 13,
            description = "stop after this many entries (default: never)")
    void maxEntries(String value) {
        maxEntries = positive("--max-entries", value, Long.MAX_VALUE);
    }

    @Option(names = "--output", paramLabel = "progress|jsonl", order = 14,
            description = "jsonl: every entry as a JSON line on stdout (default progress)")
    void output(String value) {
        if (!value.equals("progress") && !value.equals("jsonl")) {
            throw refusal("--output must be progress or jsonl, got " + value);
        }
        jsonLines = value.equals("jsonl");
    }

    @Option(names = "--max-deliveries", paramLabel = "N", order = 15,
            description = "an entry the handler failed on after N deliveries is dead-lettered and acknowledged"
                    + " (default 5)")
    void maxDeliveries(String value) {
        maxDeliveries = (int) positive("--max-deliveries", value, 1_000);
    }

    @Option(names = "--dead-letter-stream", paramLabel = "NAME", order = 16,
            description = "where such entries go (default dlq:consumer:<group>; put REDIS_NAMESPACE in front if the"
                    + " server has one)")
    void deadLetterStream(String value) {
        deadLetterStream = value;
    }

    @Option(names = "--models-hash", paramLabel = "NAME", order = 17,
            description = "the hash of device models --output jsonl names IO elements by (default devices:models,"
                    + " with the --stream's prefix in front: ns:telemetry reads ns:devices:models)")
    void modelsHash(String value) {
        modelsHash = value;
    }

    /** The options, once the checks that span several of them have passed. */
    private ConsumerOptions toOptions() {
        if (block.isZero()) {
            // BLOCK 0 waits forever: the consumer would never get to reclaim or to stop.
            throw new IllegalArgumentException("--block must be more than 0");
        }
        String deadLetters = deadLetterStream == null ? "dlq:consumer:" + group : deadLetterStream;
        if (deadLetters.equals(stream)) {
            throw new IllegalArgumentException("--dead-letter-stream must not be the stream read (" + stream + ")");
        }
        // The stream's namespace is the server's REDIS_NAMESPACE: its models hash has the same prefix.
        String models = modelsHash != null ? modelsHash
                : (stream.endsWith("telemetry") ? stream.substring(0, stream.length() - "telemetry".length()) : "")
                        + "devices:models";
        return new ConsumerOptions(redisUrl, stream, partitions, group, consumer, from, count, block, claimIdle, progress,
                untilIdle, duration, maxEntries, jsonLines, maxDeliveries, deadLetters, models);
    }

    private long positive(String name, String value, long max) {
        try {
            long n = Long.parseLong(value);
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw refusal(name + " must be a whole number from 1 to " + max + ", got " + value);
    }

    /** {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, or {@code 0}. */
    private Duration duration(String name, String value) {
        try {
            if (value.equals("0")) {
                return Duration.ZERO;
            }
            if (value.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
            }
            long n = Long.parseLong(value.substring(0, value.length() - 1));
            switch (value.charAt(value.length() - 1)) {
                case 's':
                    return Duration.ofSeconds(n);
                case 'm':
                    return Duration.ofMinutes(n);
                case 'h':
                    return Duration.ofHours(n);
                default:
                    break;
            }
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            // below
        }
        throw refusal(name + " must be a duration such as 500ms, 2s, 5m or 1h, got " + value);
    }

    private ParameterException refusal(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /**
     * The hostname: stable across restarts of a pod with a fixed name (a StatefulSet), so a
     * restarted consumer finds its own pending entries again; give --consumer to run several on one host.
     */
    private static String defaultConsumerName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "consumer";
        }
    }
}
