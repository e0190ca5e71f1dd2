package org.fleetpipe.teltonika.simulator.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.cli.DurationConverter;
import org.fleetpipe.teltonika.cli.DurationText;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * The simulator's command line as picocli binds it: typed options with their help lines and
 * defaults, then every bound and every check that spans options in one place ({@link #options()}).
 */
@Command(name = "device-simulator",
        customSynopsis = "usage: java -jar device-simulator.jar [options]",
        synopsisHeading = "",
        descriptionHeading = "%n",
        description = "Simulated Teltonika trackers: each logs in with its own IMEI (TCP) or sends datagrams (UDP),"
                + " sends AVL packets along a route, checks every ACK and resends what was not acknowledged.",
        optionListHeading = "%n",
        sortOptions = false,
        footerHeading = "%n",
        footer = {DurationText.HELP,
            "Exit code: 0 when at least one record was acknowledged and every generated record was acknowledged by"
                    + " the end; 1 when some were not (or were dropped); 2 for bad arguments."},
        usageHelpWidth = 110)
public final class SimulatorCommand {

    // Wide enough for the longest option and its value, "--devices, --connections=N", beside its help.
    private static final int OPTION_COLUMN = 26;

    @Spec
    private CommandSpec spec;

    @Option(names = {"--help", "-h"}, usageHelp = true, order = 99, description = "this text")
    private boolean help;

    @Option(names = "--host", paramLabel = "HOST", order = 1, defaultValue = "127.0.0.1",
            description = "server address (default ${DEFAULT-VALUE}); must be loopback unless --allow-remote")
    private String host;

    @Option(names = "--port", paramLabel = "N", order = 2, defaultValue = "5027",
            description = "server port (default ${DEFAULT-VALUE})")
    private int port;

    @Option(names = {"--devices", "--connections"}, paramLabel = "N", order = 3, defaultValue = "10",
            description = "simulated devices; in --load mode, connections (default ${DEFAULT-VALUE})")
    private int devices;

    @Option(names = "--interval", paramLabel = "D", order = 5, defaultValue = "1s", converter = DurationConverter.class,
            description = "time between packets of a device (default ${DEFAULT-VALUE})")
    private Duration interval;

    @Option(names = "--records", paramLabel = "N", order = 6, defaultValue = "5",
            description = "records per packet, 1..255 (default ${DEFAULT-VALUE})")
    private int records;

    @Option(names = "--codec", paramLabel = "C", order = 7, defaultValue = "8", converter = CodecConverter.class,
            description = "8, 8E, 16 or mixed (the three in turn by device) (default ${DEFAULT-VALUE})")
    private CodecChoice codec;

    @Option(names = "--transport", paramLabel = "T", order = 8, defaultValue = "tcp",
            description = "tcp or udp (default ${DEFAULT-VALUE})")
    private TransportChoice transport;

    @Option(names = "--duration", paramLabel = "D", order = 9, defaultValue = "60s", converter = DurationConverter.class,
            description = "how long to send (default ${DEFAULT-VALUE})")
    private Duration duration;

    @Option(names = "--max-packets", paramLabel = "N", order = 10,
            description = "stop each device after N packets' worth of records (default: no limit)")
    private long maxPackets = Long.MAX_VALUE;

    @Option(names = "--imei-base", paramLabel = "N", order = 11, defaultValue = "" + ImeiSequence.DEFAULT_BASE,
            description = "at most 14 digits; device i gets IMEI base+i plus its Luhn check digit"
                    + " (default ${DEFAULT-VALUE})")
    private long imeiBase;

    @Option(names = "--load", order = 12,
            description = "closed loop: each device sends its next packet as soon as the previous one is"
                    + " acknowledged, and the summary gives records/s and ACK latency")
    private boolean load;

    @Option(names = "--source-addresses", paramLabel = "A,B", order = 13, split = ",", hideParamSyntax = true,
            description = "local loopback addresses to connect from in turn (more source ports)")
    private List<String> sourceAddresses;

    @Option(names = "--allow-remote", order = 14, description = "allow a --host or source address that is not loopback")
    private boolean allowRemote;

    @Option(names = "--ack-timeout", paramLabel = "D", order = 15, defaultValue = "10s",
            converter = DurationConverter.class,
            description = "wait this long for the login answer or an ACK (default ${DEFAULT-VALUE})")
    private Duration ackTimeout;

    @Option(names = "--backoff-min", paramLabel = "D", order = 16, defaultValue = "1s",
            converter = DurationConverter.class,
            description = "first reconnect delay; it doubles with jitter (default ${DEFAULT-VALUE})")
    private Duration backoffMin;

    @Option(names = "--backoff-max", paramLabel = "D", order = 17, defaultValue = "30s",
            converter = DurationConverter.class, description = "longest reconnect delay (default ${DEFAULT-VALUE})")
    private Duration backoffMax;

    @Option(names = "--backlog", paramLabel = "N", order = 18, defaultValue = "10000",
            description = "records a device keeps while unacknowledged; more are dropped (default ${DEFAULT-VALUE})")
    private int backlog;

    @Option(names = "--max-packet-bytes", paramLabel = "N", order = 19, defaultValue = "1280",
            description = "largest frame or datagram, as a device's setting (default ${DEFAULT-VALUE})")
    private int maxPacketBytes;

    @Option(names = "--progress", paramLabel = "D", order = 20, defaultValue = "5s", converter = DurationConverter.class,
            description = "time between progress lines, 0 for none (default ${DEFAULT-VALUE})")
    private Duration progress;

    @Option(names = "--drain", paramLabel = "D", order = 21, defaultValue = "10s", converter = DurationConverter.class,
            description = "once sending stops, wait up to this for outstanding ACKs (default ${DEFAULT-VALUE})")
    private Duration drain;

    @Option(names = "--threads", paramLabel = "N", order = 22, defaultValue = "2",
            description = "event loop threads (default ${DEFAULT-VALUE})")
    private int threads;

    @Option(names = "--start-spread", paramLabel = "D", order = 23, converter = DurationConverter.class,
            description = "start the devices spread over D (default: one interval; in --load mode 1 ms per"
                    + " connection, at most 1s)")
    private Duration startSpread;

    @Option(names = "--warmup", paramLabel = "D", order = 24, defaultValue = "0", converter = DurationConverter.class,
            description = "the summary adds a \"steady\" line: rate and ACK latency after the first D, without the"
                    + " logins and the JIT's first seconds (default 0: none)")
    private Duration warmup;

    @Option(names = "--send-from", paramLabel = "D", order = 25, defaultValue = "0", converter = DurationConverter.class,
            description = "interval mode: devices generate no records before D into the run, so a login herd"
                    + " (--start-spread) is over before the load starts; each keeps its phase in the interval"
                    + " (default 0: from each device's login)")
    private Duration sendFrom;

    /** The options of {@code args}, checked. */
    public static SimulatorOptions parse(String... args) {
        SimulatorCommand command = new SimulatorCommand();
        command.commandLine().parseArgs(args);
        return command.options();
    }

    /** The picocli command line of this command, reading arguments as every run of the simulator has. */
    public CommandLine commandLine() {
        return new CommandLine(this)
                // The last of a repeated option wins, as scripts that append an override expect.
                .setOverwrittenOptionsAllowed(true)
                // "@name" is a value like any other, not a file of arguments.
                .setExpandAtFiles(false)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setUsageHelpLongOptionsMaxWidth(OPTION_COLUMN);
    }

    /**
     * The run these options describe, once every bound and every check that spans options has passed.
     *
     * @throws ParameterException naming the option and what it expects, as picocli's own refusals do
     */
    public SimulatorOptions options() {
        within("--port", port, 1, 65535);
        within("--devices (--connections)", devices, 1, 1_000_000);
        within("--records", records, 1, 255);
        within("--max-packets", maxPackets, 1, Long.MAX_VALUE);
        within("--imei-base", imeiBase, 0, 99_999_999_999_999L);
        within("--backlog", backlog, 1, 10_000_000);
        within("--max-packet-bytes", maxPacketBytes, 128, 16 * 1024 * 1024);
        within("--threads", threads, 1, 256);
        moreThanZero("--interval", interval);
        moreThanZero("--duration", duration);
        moreThanZero("--ack-timeout", ackTimeout);
        moreThanZero("--backoff-min", backoffMin);
        moreThanZero("--backoff-max", backoffMax);
        if (backoffMax.compareTo(backoffMin) < 0) {
            throw refusal("--backoff-max (" + DurationText.format(backoffMax) + ") is shorter than --backoff-min ("
                    + DurationText.format(backoffMin) + ")");
        }
        if (!warmup.isZero() && warmup.compareTo(duration) >= 0) {
            throw refusal("--warmup (" + DurationText.format(warmup) + ") leaves nothing of --duration ("
                    + DurationText.format(duration) + ") to report");
        }
        if (!sendFrom.isZero() && load) {
            throw refusal("--send-from applies to interval mode, not --load");
        }
        if (!sendFrom.isZero() && sendFrom.compareTo(duration) >= 0) {
            throw refusal("--send-from (" + DurationText.format(sendFrom) + ") leaves nothing of --duration ("
                    + DurationText.format(duration) + ") to send in");
        }
        if (!new ImeiSequence(imeiBase).fits(devices)) {
            throw refusal("--imei-base " + imeiBase + " leaves no room for " + devices + " devices within 14 digits");
        }
        if (backlog < records) {
            throw refusal("--backlog (" + backlog + ") must hold at least one packet (--records " + records + ")");
        }
        try {
            InetAddress server = LoopbackGuard.resolve("--host", host.trim(), allowRemote);
            List<InetAddress> sources = new ArrayList<>();
            for (String s : sourceAddresses == null ? List.<String>of() : sourceAddresses) {
                if (!s.isBlank()) {
                    sources.add(LoopbackGuard.resolve("--source-addresses", s.trim(), allowRemote));
                }
            }
            return new SimulatorOptions(new InetSocketAddress(server, port), devices, interval, records, codec,
                    transport, duration, imeiBase, maxPackets, load, sources, ackTimeout, backoffMin, backoffMax,
                    backlog, maxPacketBytes, progress, drain, threads, startSpread, warmup, sendFrom);
        } catch (IllegalArgumentException e) {
            throw refusal(e.getMessage());
        }
    }

    private void within(String option, long n, long min, long max) {
        if (n < min || n > max) {
            throw refusal(option + " must be " + min + ".." + (max == Long.MAX_VALUE ? "" : Long.toString(max))
                    + ", got " + n);
        }
    }

    private void moreThanZero(String option, Duration d) {
        if (d.isZero()) {
            throw refusal(option + " must be more than zero");
        }
    }

    private ParameterException refusal(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code --codec}: the choice by its text, 8, 8E, 16 or mixed, in any case. */
    static final class CodecConverter implements ITypeConverter<CodecChoice> {
        @Override
        public CodecChoice convert(String value) {
            CodecChoice choice = CodecChoice.parse(value);
            if (choice == null) {
                throw new TypeConversionException("expected 8, 8E, 16 or mixed, got '" + value + "'");
            }
            return choice;
        }
    }
}
