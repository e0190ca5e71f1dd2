package org.fleetpipe.teltonika.simulator.report;

import java.time.Duration;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/** The one line printed every few seconds while a run goes on. */
public final class ProgressLine {

    private ProgressLine() {
    }

    /** @param interval ACK latencies since the previous line */
    public static String format(Duration elapsed, StatsSnapshot s, Histogram interval) {
        return String.format(Locale.ROOT,
                "[%6.1fs] devices %d connected %d | packets %d | records sent %d acked %d pending %d | resent %d"
                        + " reconnects %d | ack %s",
                elapsed.toMillis() / 1000.0, s.devices(), s.connected(), s.packetsSent(), s.recordsSent(),
                s.recordsAcknowledged(), s.recordsUnacknowledged(), s.recordsResent(), s.reconnects(),
                LatencyText.percentiles(interval, false));
    }
}
