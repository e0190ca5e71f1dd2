package org.fleetpipe.teltonika.simulator.report;

import java.time.Duration;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.fleetpipe.teltonika.cli.DurationText;

/** The report printed at the end of a run, and the rule that decides its exit code. */
public final class SummaryReport {

    public static final int EXIT_OK = 0;
    public static final int EXIT_UNACKNOWLEDGED = 1;

    private SummaryReport() {
    }

    /**
     * 0 when at least one record was acknowledged and every record generated was acknowledged
     * (none dropped, none left in a backlog); 1 otherwise. "At least one" keeps a run that never
     * reached the server from passing just because it generated nothing.
     */
    public static int exitCode(StatsSnapshot s) {
        return s.recordsAcknowledged() > 0 && s.recordsUnacknowledged() == 0 && s.recordsDropped() == 0
                ? EXIT_OK : EXIT_UNACKNOWLEDGED;
    }

    /**
     * @param title             what ran, e.g. "tcp, codec 8, interval 1s, 5 records per packet"
     * @param connectedAtTheEnd devices connected when sending stopped, before they were closed
     * @param warmup            the warm-up asked for, zero for none
     * @param steady            the run after that warm-up; null when there was none or the run ended first
     */
    public static String format(String title, Duration elapsed, StatsSnapshot s, int connectedAtTheEnd,
                                Histogram latency, Duration warmup, SteadyPhase steady) {
        return format(title, elapsed, s, connectedAtTheEnd, latency, warmup, steady, -1, null);
    }

    /**
     * As above, with a "first acks" line: how many devices had an ACK, and when the last of them had
     * its first, {@code lastFirstAck} after the start (null for none).
     */
    public static String format(String title, Duration elapsed, StatsSnapshot s, int connectedAtTheEnd,
                                Histogram latency, Duration warmup, SteadyPhase steady, int devicesAcknowledged,
                                Duration lastFirstAck) {
        StringBuilder b = new StringBuilder();
        line(b, "summary", String.format(Locale.ROOT, "after %.1f s (%s)", elapsed.toMillis() / 1000.0, title));
        line(b, "devices", s.devices() + " (connected at the end: " + connectedAtTheEnd + ")");
        line(b, "packets", "sent " + s.packetsSent() + ", acknowledged " + s.packetsAcknowledged());
        line(b, "records", "generated " + s.recordsGenerated() + ", sent " + s.recordsSent() + ", acknowledged "
                + s.recordsAcknowledged() + ", unacknowledged " + s.recordsUnacknowledged() + ", dropped "
                + s.recordsDropped());
        line(b, "resends", s.recordsResent() + " records (ACK timeouts " + s.ackTimeouts() + ", wrong ACK counts "
                + s.ackMismatches() + ", unexpected ACKs " + s.unexpectedAcks() + ")");
        line(b, "reconnects", s.reconnects() + " (connect failures " + s.connectFailures() + ", logins refused "
                + s.loginRefusals() + ")");
        line(b, "commands", "answered " + s.commandsAnswered());
        line(b, "ack latency", LatencyText.percentiles(latency, true) + "  (" + latency.getTotalCount() + " ACKs)");
        line(b, "throughput", String.format(Locale.ROOT, "%.1f records/s acknowledged", s.recordsPerSecond()));
        if (steady != null) {
            line(b, "steady", String.format(Locale.ROOT, "after the first %s: %.1f records/s acknowledged, ack latency ",
                    DurationText.format(steady.warmup()), steady.recordsPerSecond(s))
                    + LatencyText.percentiles(steady.latency(), true) + "  (" + steady.latency().getTotalCount()
                    + " ACKs)");
        } else if (!warmup.isZero()) {
            line(b, "steady", "none: sending ended within the " + DurationText.format(warmup) + " warm-up");
        }
        if (devicesAcknowledged >= 0) {
            line(b, "first acks", devicesAcknowledged + " of " + s.devices() + " devices had an ACK"
                    + (lastFirstAck == null ? "" : String.format(Locale.ROOT, "; the last of them its first %.2f s"
                    + " after the start", lastFirstAck.toNanos() / 1e9)));
        }
        line(b, "result", result(s));
        return b.toString();
    }

    private static String result(StatsSnapshot s) {
        if (exitCode(s) == EXIT_OK) {
            return "OK: every record acknowledged";
        }
        if (s.recordsAcknowledged() == 0) {
            return "FAILED: no record was acknowledged (" + s.recordsGenerated() + " generated)";
        }
        return "FAILED: " + s.recordsUnacknowledged() + " of " + s.recordsGenerated() + " records not acknowledged ("
                + s.recordsDropped() + " dropped)";
    }

    private static void line(StringBuilder b, String label, String text) {
        b.append(String.format(Locale.ROOT, "%-12s %s%n", label, text));
    }
}
