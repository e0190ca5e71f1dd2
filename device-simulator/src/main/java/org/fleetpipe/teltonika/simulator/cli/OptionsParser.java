package org.fleetpipe.teltonika.simulator.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;

/** Reads the command line into {@link SimulatorOptions}; every mistake becomes one {@link UsageException} line. */
public final class OptionsParser {

    private String host = "127.0.0.1";
    private int port = 5027;
    private int devices = 10;
    private Duration interval = Duration.ofSeconds(1);
    private int records = 5;
    private CodecChoice codec = CodecChoice.CODEC_8;
    private TransportChoice transport = TransportChoice.TCP;
    private Duration duration = Duration.ofSeconds(60);
    private long imeiBase = ImeiSequence.DEFAULT_BASE;
    private long maxPackets = Long.MAX_VALUE;
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
    private Duration warmup = Duration.ZERO;

    private OptionsParser() {
    }

    public static SimulatorOptions parse(String... args) throws UsageException {
        OptionsParser p = new OptionsParser();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("-")) {
                throw new UsageException("unexpected argument '" + arg + "' (options start with --)");
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (p.flag(name)) {
                if (value != null) {
                    throw new UsageException(name + " takes no value");
                }
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(name + " needs a value");
                }
                value = args[++i];
            }
            p.option(name, value);
        }
        return p.build();
    }

    private boolean flag(String name) throws UsageException {
        switch (name) {
            case "--load" -> load = true;
            case "--allow-remote" -> allowRemote = true;
            case "--help", "-h" -> throw UsageException.help();
            default -> {
                return false;
            }
        }
        return true;
    }

    private void option(String name, String value) throws UsageException {
        switch (name) {
            case "--host" -> host = value.trim();
            case "--port" -> port = (int) number(name, value, 1, 65535);
            case "--devices", "--connections" -> devices = (int) number(name, value, 1, 1_000_000);
            case "--interval" -> interval = duration(name, value, false);
            case "--records" -> records = (int) number(name, value, 1, 255);
            case "--codec" -> {
                codec = CodecChoice.parse(value);
                if (codec == null) {
                    throw new UsageException(name + ": expected 8, 8E, 16 or mixed, got '" + value + "'");
                }
            }
            case "--transport" -> transport = switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "tcp" -> TransportChoice.TCP;
                case "udp" -> TransportChoice.UDP;
                default -> throw new UsageException(name + ": expected tcp or udp, got '" + value + "'");
            };
            case "--duration" -> duration = duration(name, value, false);
            case "--max-packets" -> maxPackets = number(name, value, 1, Long.MAX_VALUE);
            case "--imei-base" -> {
                if (!value.matches("\\d{14}")) {
                    throw new UsageException(name + ": expected 14 digits (the IMEI without its check digit), got '"
                            + value + "'");
                }
                imeiBase = Long.parseLong(value);
            }
            case "--source-addresses" -> sourceAddresses = value;
            case "--ack-timeout" -> ackTimeout = duration(name, value, false);
            case "--backoff-min" -> backoffMin = duration(name, value, false);
            case "--backoff-max" -> backoffMax = duration(name, value, false);
            case "--backlog" -> backlog = (int) number(name, value, 1, 10_000_000);
            case "--max-packet-bytes" -> maxPacketBytes = (int) number(name, value, 128, 16 * 1024 * 1024);
            case "--progress" -> progress = duration(name, value, true);
            case "--drain" -> drain = duration(name, value, true);
            case "--threads" -> threads = (int) number(name, value, 1, 256);
            case "--start-spread" -> startSpread = duration(name, value, true);
            case "--warmup" -> warmup = duration(name, value, true);
            default -> throw new UsageException("unknown option " + name);
        }
    }

    private SimulatorOptions build() throws UsageException {
        if (backoffMax.compareTo(backoffMin) < 0) {
            throw new UsageException("--backoff-max (" + DurationText.format(backoffMax)
                    + ") is shorter than --backoff-min (" + DurationText.format(backoffMin) + ")");
        }
        if (!warmup.isZero() && warmup.compareTo(duration) >= 0) {
            throw new UsageException("--warmup (" + DurationText.format(warmup) + ") leaves nothing of --duration ("
                    + DurationText.format(duration) + ") to report");
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
                backlog, maxPacketBytes, progress, drain, threads, startSpread, warmup);
    }

    private static long number(String name, String value, long min, long max) throws UsageException {
        long n;
        try {
            n = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(name + ": expected a whole number, got '" + value + "'");
        }
        if (n < min || n > max) {
            throw new UsageException(name + ": " + n + " is outside " + min + ".."
                    + (max == Long.MAX_VALUE ? "" : Long.toString(max)));
        }
        return n;
    }

    private static Duration duration(String name, String value, boolean zeroAllowed) throws UsageException {
        Duration d = DurationText.parse(value);
        if (d == null) {
            throw new UsageException(name + ": expected a duration such as 500ms, 5s, 2m, got '" + value + "'");
        }
        if (d.isZero() && !zeroAllowed) {
            throw new UsageException(name + ": must be more than zero");
        }
        return d;
    }
}
