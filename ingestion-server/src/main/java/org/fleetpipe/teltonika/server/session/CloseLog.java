package org.fleetpipe.teltonika.server.session;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The log lines of server-side closes: at most {@code perInterval} per reason and interval, the
 * rest counted and summed up in one line when the interval ends. An attack (thousands of pre-login
 * holders timed out) or a mass event (a drain at shutdown) would otherwise write a line per
 * connection; {@code teltonika_connections_closed_total{reason}} counts every close regardless.
 */
public final class CloseLog {

    private final Logger log;
    private final int perInterval;
    private final long intervalNanos;
    private final Map<DisconnectReason, Window> windows = new EnumMap<>(DisconnectReason.class);

    public CloseLog(Logger log, int perInterval, Duration interval) {
        this.log = log;
        this.perInterval = perInterval;
        this.intervalNanos = interval.toNanos();
        for (DisconnectReason reason : DisconnectReason.values()) {
            windows.put(reason, new Window());
        }
    }

    /** One reason's interval: when it began, lines written, lines held back, whether a summary is due. */
    private static final class Window {
        long start = System.nanoTime();
        int logged;
        int suppressed;
        boolean summaryScheduled;
    }

    /**
     * Logs {@code format} with {@code args} at INFO, unless {@code reason} had its lines this interval:
     * then counts it, and makes sure a summary line is written on {@code scheduler} when the interval ends.
     */
    public void closing(ScheduledExecutorService scheduler, DisconnectReason reason, String format, Object... args) {
        Window w = windows.get(reason);
        boolean write;
        long summaryInNanos = -1;
        synchronized (w) {
            long now = System.nanoTime();
            if (now - w.start >= intervalNanos) {
                w.start = now;
                w.logged = 0;
            }
            write = w.logged < perInterval;
            if (write) {
                w.logged++;
            } else {
                w.suppressed++;
                if (!w.summaryScheduled) {
                    w.summaryScheduled = true;
                    summaryInNanos = Math.max(0, w.start + intervalNanos - now);
                }
            }
        }
        if (write) {
            log.info(format, args);
        }
        if (summaryInNanos >= 0) {
            try {
                scheduler.schedule(() -> summary(reason), summaryInNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopping) {
                summary(reason);
            }
        }
    }

    private void summary(DisconnectReason reason) {
        Window w = windows.get(reason);
        int suppressed;
        synchronized (w) {
            suppressed = w.suppressed;
            w.suppressed = 0;
            w.summaryScheduled = false;
        }
        if (suppressed > 0) {
            log.info("closed {} more device connection(s) with reason={} without a line each (at most {} lines per"
                    + " reason every {} s; teltonika_connections_closed_total counts them all)", suppressed,
                    reason.label(), perInterval, TimeUnit.NANOSECONDS.toSeconds(intervalNanos));
        }
    }
}
