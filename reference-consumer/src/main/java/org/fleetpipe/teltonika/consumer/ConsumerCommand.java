package org.fleetpipe.teltonika.consumer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.fleetpipe.teltonika.cli.DurationConverter;
import org.fleetpipe.teltonika.cli.DurationText;
import org.fleetpipe.teltonika.payload.TelemetryKeys;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The reference consumer's command line as picocli binds it: typed options with their help lines
 * and defaults, then every bound and every check that spans options in one place ({@link #options()}).
 */
@Command(name = "reference-consumer",
        customSynopsis = "usage: java -jar reference-consumer.jar [options]",
        synopsisHeading = "",
        sortOptions = false,
        footer = {DurationText.HELP,
            "Exit code: 0 when it stopped as asked, 1 when Redis failed, 2 for bad arguments."},
        usageHelpWidth = 120)
final class ConsumerCommand {

    /** {@code --output}: progress lines on stdout, or every entry as a JSON line there. */
    enum Output { PROGRESS, JSONL }

    // Wide enough for the longest option and its value, "--dead-letter-stream=NAME", beside its help.
    private static final int OPTION_COLUMN = 26;

    @Spec
    private CommandSpec spec;

    @Option(names = {"--help", "-h"}, usageHelp = true, order = 99, description = "this text")
    private boolean help;

    @Option(names = "--redis-url", paramLabel = "URL", order = 1,
            defaultValue = "${env:REDIS_URL:-redis://127.0.0.1:6379}",
            description = "Redis of the ingestion server (default: $REDIS_URL, else redis://127.0.0.1:6379)")
    private String redisUrl;

    @Option(names = "--stream", paramLabel = "NAME", order = 2, defaultValue = "telemetry",
            description = "stream to read (default telemetry; put REDIS_NAMESPACE in front if the server has one)")
    private String stream;

    @Option(names = "--partitions", paramLabel = "N", order = 3,
            description = "how many partition streams the servers write (<stream>:{0}..): default what the"
                    + " servers wrote in <stream>:partitions, else 1 (the one stream)")
    private Integer partitions;

    @Option(names = "--group", paramLabel = "NAME", order = 4, defaultValue = "reference",
            description = "consumer group, created if missing (default reference)")
    private String group;

    @Option(names = "--consumer", paramLabel = "NAME", order = 5,
            description = "this consumer's name within the group, the same after a restart (default: the hostname)")
    private String consumer;

    @Option(names = "--from", paramLabel = "0|$", order = 6, defaultValue = "0",
            description = "where a new group starts: 0 = everything still in the stream (default), $ = new entries"
                    + " only")
    private String from;

    @Option(names = "--count", paramLabel = "N", order = 7, defaultValue = "500",
            description = "entries per XREADGROUP, 1..100000 (default 500)")
    private int count;

    @Option(names = "--block", paramLabel = "DURATION", order = 8, defaultValue = "2s",
            converter = DurationConverter.class,
            description = "how long one XREADGROUP waits for new entries, more than 0 (default 2s)")
    private Duration block;

    @Option(names = "--claim-idle", paramLabel = "DURATION", order = 9, defaultValue = "60s",
            converter = DurationConverter.class,
            description = "take over entries another consumer left unacknowledged this long (default 60s)")
    private Duration claimIdle;

    @Option(names = "--progress", paramLabel = "DURATION", order = 10, defaultValue = "5s",
            converter = DurationConverter.class, description = "progress line period, 0 = none (default 5s)")
    private Duration progress;

    @Option(names = "--until-idle", paramLabel = "DURATION", order = 11, defaultValue = "0",
            converter = DurationConverter.class,
            description = "stop when nothing new arrived for this long (default 0: never)")
    private Duration untilIdle;

    @Option(names = "--duration", paramLabel = "DURATION", order = 12, defaultValue = "0",
            converter = DurationConverter.class, description = "stop after this long (default 0: never)")
    private Duration duration;

    @Option(names = "--max-entries", paramLabel = "N", order = 13, defaultValue = "0",
            description = "stop after this many entries (default 0: never)")
    private long maxEntries;

    @Option(names = "--output", paramLabel = "progress|jsonl", order = 14, defaultValue = "progress",
            description = "jsonl: every entry as a JSON line on stdout (default progress)")
    private Output output;

    @Option(names = "--max-deliveries", paramLabel = "N", order = 15, defaultValue = "5",
            description = "an entry the handler failed on after N deliveries (1..1000) is dead-lettered and"
                    + " acknowledged (default 5)")
    private int maxDeliveries;

    @Option(names = "--dead-letter-stream", paramLabel = "NAME", order = 16,
            description = "where such entries go (default dlq:consumer:<group>; put REDIS_NAMESPACE in front if the"
                    + " server has one)")
    private String deadLetterStream;

    @Option(names = "--models-hash", paramLabel = "NAME", order = 17,
            description = "the hash of device models --output jsonl names IO elements by (default "
                    + TelemetryKeys.DEVICE_MODELS + ", with the --stream's prefix in front: ns:telemetry reads ns:"
                    + TelemetryKeys.DEVICE_MODELS + ")")
    private String modelsHash;

    /** The options of {@code args}, checked; REDIS_URL from the environment is the default Redis. */
    static ConsumerOptions parse(String... args) {
        ConsumerCommand command = new ConsumerCommand();
        command.commandLine().parseArgs(args);
        return command.options();
    }

    /** The picocli command line of this command. */
    CommandLine commandLine() {
        return new CommandLine(this)
                // The last of a repeated option wins, as scripts that append an override expect.
                .setOverwrittenOptionsAllowed(true)
                // "@name" is a value like any other, not a file of arguments.
                .setExpandAtFiles(false)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setUsageHelpLongOptionsMaxWidth(OPTION_COLUMN);
    }

    /**
     * The options, once every bound and every check that spans options has passed.
     *
     * @throws ParameterException naming the option and what it expects, as picocli's own refusals do
     */
    ConsumerOptions options() {
        if (partitions != null) {
            within("--partitions", partitions, 1, TelemetryLayout.MAX_PARTITIONS);
        }
        within("--count", count, 1, 100_000);
        within("--max-entries", maxEntries, 0, Long.MAX_VALUE);
        within("--max-deliveries", maxDeliveries, 1, 1_000);
        if (!from.equals("0") && !from.equals("$")) {
            throw refusal("--from must be 0 or $, got " + from);
        }
        if (block.isZero()) {
            // BLOCK 0 waits forever: the consumer would never get to reclaim or to stop.
            throw refusal("--block must be more than 0");
        }
        String deadLetters = deadLetterStream == null ? "dlq:consumer:" + group : deadLetterStream;
        if (deadLetters.equals(stream)) {
            throw refusal("--dead-letter-stream must not be the stream read (" + stream + ")");
        }
        // The stream's namespace is the server's REDIS_NAMESPACE: its models hash has the same prefix.
        String models = modelsHash != null ? modelsHash : TelemetryKeys.ofStream(stream).deviceModels();
        return new ConsumerOptions(redisUrl, stream, partitions == null ? 0 : partitions, group,
                consumer == null ? defaultConsumerName() : consumer, from, count, block, claimIdle, progress, untilIdle,
                duration, maxEntries, output == Output.JSONL, maxDeliveries, deadLetters, models);
    }

    private void within(String option, long n, long min, long max) {
        if (n < min || n > max) {
            throw refusal(option + " must be " + min + ".." + (max == Long.MAX_VALUE ? "" : Long.toString(max))
                    + ", got " + n);
        }
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
