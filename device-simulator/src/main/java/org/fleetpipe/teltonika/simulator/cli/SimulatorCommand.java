package org.fleetpipe.teltonika.simulator.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The simulator's command line as picocli binds it: each option with its help line, its default
 * and its bounds, then the checks that span options ({@link #toOptions()}).
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
        footer = {"Durations: 500ms, 1s, 2m, 1h (a bare number is seconds).",
            "Exit code: 0 when at least one record was acknowledged and every generated record was acknowledged by"
                    + " the end; 1 when some were not (or were dropped); 2 for bad arguments."},
        usageHelpWidth = 110)
final class SimulatorCommand {

    // Options are setters so that a bad value fails where it stands, naming the option as typed
    // (--devices and --connections share one field); the parse stops at the first mistake.

    @Spec
    private CommandSpec spec;

    private String host = "127.0.0.1";
    private int port = 5027;
    private int devices = 10;
    private Duration interval = Duration.ofSeconds(1);
    private int records = 5;
    private CodecChoice codec = CodecChoice.CODEC_8;
    private TransportChoice transport = TransportChoice.TCP;
    private Duration duration = Duration.ofSeconds(60);
    private long maxPackets = Long.MAX_VALUE;
    private long imeiBase = ImeiSequence.DEFAULT_BASE;
    private boolean load;
    private String sourceAddresses = "";
    private boolean allowRemote;
    private Duration ackTimeout = Duration.ofSeconds(10);
    private Duration backoffMin = Duration.ofSeconds(1);
    private Duration backoffMax = Duration.ofSeconds(30);
    private int backlog = 10_000;
    private int maxPacketBytes = 1280;
    private Duration progress = Duration.ofSeconds(5);
    private Duration drain = Duration.ofSeconds(10);
    private int threads = 2;
    private Duration startSpread;
    private Duration sendFrom = Duration.ZERO;
    private Duration warmup = Duration.ZERO;

    @Option(names = {"--help", "-h"}, usageHelp = true, arity = "0", order = 99, description = "this text")
    private boolean help;

    @Option(names = "--host", paramLabel = "HOST", order = 1,
            description = "server address (default 127.0.0.1); must be loopback unless --allow-remote")
    void host(String value) {
        host = value.trim();
    }

    @Option(names = "--port", paramLabel = "N", order = 2, description = "server port (default 5027)")
    void port(long n) {
        port = (int) within("--port", n, 1, 65535);
    }

    @Option(names = "--devices", paramLabel = "N", order = 3,
            description = "simulated devices; in --load mode, connections (default 10)")
    void devices(long n) {
        devices = (int) within("--devices", n, 1, 1_000_000);
    }

    @Option(names = "--connections", paramLabel = "N", order = 4, description = "same as --devices")
    void connections(long n) {
        devices = (int) within("--connections", n, 1, 1_000_000);
    }

    @Option(names = "--interval", paramLabel = "D", order = 5,
            description = "time between packets of a device (default 1s)")
    void interval(Duration d) {
        interval = moreThanZero("--interval", d);
    }

    @Option(names = "--records", paramLabel = "N", order = 6, description = "records per packet, 1..255 (default 5)")
    void records(long n) {
        records = (int) within("--records", n, 1, 255);
    }

    @Option(names = "--codec", paramLabel = "C", order = 7,
            description = "8, 8E, 16 or mixed (the three in turn by device) (default 8)")
    void codec(CodecChoice choice) {
        codec = choice;
    }

    @Option(names = "--transport", paramLabel = "T", order = 8, description = "tcp or udp (default tcp)")
    void transport(TransportChoice choice) {
        transport = choice;
    }

    @Option(names = "--duration", paramLabel = "D", order = 9, description = "how long to send (default 60s)")
    void duration(Duration d) {
        duration = moreThanZero("--duration", d);
    }

    @Option(names = "--max-packets", paramLabel = "N", order = 10,
            description = "stop each device after N packets' worth of records (default: no limit)")
    void maxPackets(long n) {
        maxPackets = within("--max-packets", n, 1, Long.MAX_VALUE);
    }

    @Option(names = "--imei-base", paramLabel = "N", order = 11,
            description = "14 digits; device i gets IMEI base+i plus its Luhn check digit (default 35209308000000)")
    void imeiBase(String value) {
        if (!value.matches("\\d{14}")) {
            throw refusal("--imei-base: expected 14 digits (the IMEI without its check digit), got '" + value + "'");
        }
        imeiBase = Long.parseLong(value);
    }

    @Option(names = "--load", arity = "0", order = 12,
            description = "closed loop: each device sends its next packet as soon as the previous one is"
                    + " acknowledged, and the summary gives records/s and ACK latency")
    void load(boolean on) {
        load = true;
    }

    @Option(names = "--source-addresses", paramLabel = "A,B", order = 13,
            description = "local loopback addresses to connect from in turn (more source ports)")
    void sourceAddresses(String value) {
        sourceAddresses = value;
    }

    @Option(names = "--allow-remote", arity = "0", order = 14,
            description = "allow a --host or source address that is not loopback")
    void allowRemote(boolean on) {
        allowRemote = true;
    }

    @Option(names = "--ack-timeout", paramLabel = "D", order = 15,
            description = "wait this long for the login answer or an ACK (default 10s)")
    void ackTimeout(Duration d) {
        ackTimeout = moreThanZero("--ack-timeout", d);
    }

    @Option(names = "--backoff-min", paramLabel = "D", order = 16,
            description = "first reconnect delay; it doubles with jitter (default 1s)")
    void backoffMin(Duration d) {
        backoffMin = moreThanZero("--backoff-min", d);
    }

    @Option(names = "--backoff-max", paramLabel = "D", order = 17, description = "longest reconnect delay (default 30s)")
    void backoffMax(Duration d) {
        backoffMax = moreThanZero("--backoff-max", d);
    }

    @Option(names = "--backlog", paramLabel = "N", order = 18,
            description = "records a device keeps while unacknowledged; more are dropped (default 10000)")
    void backlog(long n) {
        backlog = (int) within("--backlog", n, 1, 10_000_000);
    }

    @Option(names = "--max-packet-bytes", paramLabel = "N", order = 19,
            description = "largest frame or datagram, as a device's setting (default 1280)")
    void maxPacketBytes(long n) {
        maxPacketBytes = (int) within("--max-packet-bytes", n, 128, 16 * 1024 * 1024);
    }

    @Option(names = "--progress", paramLabel = "D", order = 20,
            description = "time between progress lines, 0 for none (default 5s)")
    void progress(Duration d) {
        progress = d;
    }

    @Option(names = "--drain", paramLabel = "D", order = 21,
            description = "once sending stops, wait up to this for outstanding ACKs (default 10s)")
    void drain(Duration d) {
        drain = d;
    }

    @Option(names = "--threads", paramLabel = "N", order = 22, description = "event loop threads (default 2)")
    void threads(long n) {
        threads = (int) within("--threads", n, 1, 256);
    }

    @Option(names = "--start-spread", paramLabel = "D", order = 23,
            description = "start the devices spread over D (default: one interval; in --load mode 1 ms per"
                    + " connection, at most 1s)")
    void startSpread(Duration d) {
        startSpread = d;
    }

    @Option(names = "--warmup", paramLabel = "D", order = 24,
            description = "the summary adds a \"steady\" line: rate and ACK latency after the first D, without the"
                    + " logins and the JIT's first seconds (default 0: none)")
    void warmup(Duration d) {
        warmup = d;
    }

    @Option(names = "--send-from", paramLabel = "D", order = 25,
            description = "interval mode: devices generate no records before D into the run, so a login herd"
                    + " (--start-spread) is over before the load starts; each keeps its phase in the interval"
                    + " (default 0: from each device's login)")
    void sendFrom(Duration d) {
        sendFrom = d;
    }

    /** The run these options describe, once the checks that span several options have passed. */
    SimulatorOptions toOptions() throws UsageException {
        if (backoffMax.compareTo(backoffMin) < 0) {
            throw new UsageException("--backoff-max (" + DurationText.format(backoffMax)
                    + ") is shorter than --backoff-min (" + DurationText.format(backoffMin) + ")");
        }
        if (!warmup.isZero() && warmup.compareTo(duration) >= 0) {
            throw new UsageException("--warmup (" + DurationText.format(warmup) + ") leaves nothing of --duration ("
                    + DurationText.format(duration) + ") to report");
        }
        if (!sendFrom.isZero() && load) {
            throw new UsageException("--send-from applies to interval mode, not --load");
        }
        if (!sendFrom.isZero() && sendFrom.compareTo(duration) >= 0) {
            throw new UsageException("--send-from (" + DurationText.format(sendFrom) + ") leaves nothing of --duration ("
                    + DurationText.format(duration) + ") to send in");
        }
        if (!new ImeiSequence(imeiBase).fits(devices)) {
            throw new UsageException("--imei-base " + imeiBase + " leaves no room for " + devices
                    + " devices within 14 digits");
        }
        if (backlog < records) {
            throw new UsageException("--backlog (" + backlog + ") must hold at least one packet (--records "
                    + records + ")");
        }
        InetAddress server = LoopbackGuard.resolve("--host", host, allowRemote);
        List<InetAddress> sources = new ArrayList<>();
        for (String s : sourceAddresses.split(",")) {
            if (!s.isBlank()) {
                sources.add(LoopbackGuard.resolve("--source-addresses", s.trim(), allowRemote));
            }
        }
        return new SimulatorOptions(new InetSocketAddress(server, port), devices, interval, records, codec,
                transport, duration, imeiBase, maxPackets, load, sources, ackTimeout, backoffMin, backoffMax,
                backlog, maxPacketBytes, progress, drain, threads, startSpread, warmup, sendFrom);
    }

    private long within(String option, long n, long min, long max) {
        if (n < min || n > max) {
            throw refusal(option + ": " + n + " is outside " + min + ".."
                    + (max == Long.MAX_VALUE ? "" : Long.toString(max)));
        }
        return n;
    }

    private Duration moreThanZero(String option, Duration d) {
        if (d.isZero()) {
            throw refusal(option + ": must be more than zero");
        }
        return d;
    }

    private ParameterException refusal(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
