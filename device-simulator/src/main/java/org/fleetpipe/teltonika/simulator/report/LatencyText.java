package org.fleetpipe.teltonika.simulator.report;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/** Percentiles of a microsecond histogram as milliseconds, for the progress line and the summary. */
final class LatencyText {

    private LatencyText() {
    }

    static String percentiles(Histogram h, boolean withMax) {
        if (h.getTotalCount() == 0) {
            return "no ACKs";
        }
        String text = "p50 " + millis(h.getValueAtPercentile(50)) + "  p99 " + millis(h.getValueAtPercentile(99))
                + "  p99.9 " + millis(h.getValueAtPercentile(99.9));
        return withMax ? text + "  max " + millis(h.getMaxValue()) : text;
    }

    static String millis(long micros) {
        return String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
    }
}
