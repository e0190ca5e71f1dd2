package org.fleetpipe.teltonika.simulator.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.fleetpipe.teltonika.cli.DurationText;
import org.fleetpipe.teltonika.simulator.device.DeviceSettings;

/**
 * A run as the command line described it; addresses are already resolved and checked.
 *
 * @param maxPackets      packets' worth of records each device generates; Long.MAX_VALUE for no limit
 * @param load            closed-loop load mode: next packet as soon as the previous ACK arrives
 * @param sourceAddresses local addresses the devices take in turn; empty for the system's choice
 * @param progress        time between progress lines; zero for none
 * @param drain           how long to wait for outstanding ACKs once sending stops
 * @param startSpread     devices start spread over this; null for the default (one interval, or in
 *                        load mode up to a second)
 * @param warmup          the summary also reports the run after this much time (rate and ACK
 *                        latency without the logins and the JIT's first seconds); zero for no such line
 * @param sendFrom        interval mode: no device generates records before this much time into the run
 *                        (they log in over {@code startSpread} meanwhile, each keeping its phase within
 *                        the interval); zero for records from each device's login on
 */
public record SimulatorOptions(InetSocketAddress server, int devices, Duration interval, int records,
                               CodecChoice codec, TransportChoice transport, Duration duration, long imeiBase,
                               long maxPackets, boolean load, List<InetAddress> sourceAddresses,
                               Duration ackTimeout, Duration backoffMin, Duration backoffMax, int backlog,
                               int maxPacketBytes, Duration progress, Duration drain, int threads,
                               Duration startSpread, Duration warmup, Duration sendFrom) {

    public SimulatorOptions {
        sourceAddresses = List.copyOf(sourceAddresses);
    }

    /**
     * When a device that opens {@code openDelayNanos} into the run generates its first records: at
     * its opening, or with {@link #sendFrom} at the first moment from then that is in the same phase
     * of the interval as its opening, so the fleet's packets stay spread over the interval.
     */
    public long firstRecordsDelayNanos(long openDelayNanos) {
        long from = sendFrom.toNanos();
        if (load || openDelayNanos >= from) {
            return openDelayNanos;
        }
        long period = interval.toNanos();
        return from + Math.floorMod(openDelayNanos - from, period);
    }

    public DeviceSettings deviceSettings() {
        return new DeviceSettings(interval, records, maxPackets, load, ackTimeout, backoffMin, backoffMax, backlog,
                maxPacketBytes);
    }

    /** One line that says what ran, for the summary. */
    public String title() {
        String pacing = load ? "closed loop" : "every " + DurationText.format(interval);
        String limit = maxPackets == Long.MAX_VALUE ? "" : ", at most " + maxPackets + " packets per device";
        return String.format(Locale.ROOT, "%s %s:%d, codec %s, %d %s, %s, %d records per packet%s",
                transport.name().toLowerCase(Locale.ROOT), server.getAddress().getHostAddress(), server.getPort(),
                codec, devices, load ? "connections" : "devices", pacing, records, limit);
    }
}
