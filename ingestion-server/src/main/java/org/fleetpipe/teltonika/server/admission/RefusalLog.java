package org.fleetpipe.teltonika.server.admission;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a refused login once per IMEI (or address) per interval: refused devices retry every few
 * seconds, and a log line each time would bury everything else. The metric counts every refusal.
 */
public final class RefusalLog {

    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);
    /** Bound on the remembered keys, so a flood of distinct IMEIs cannot grow memory. */
    private static final int MAX_KEYS = 100_000;

    private final long intervalMillis;
    private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();

    public RefusalLog(Duration interval) {
        this.intervalMillis = interval.toMillis();
    }

    /** Logs {@code message} (with its arguments) unless {@code key} was logged within the interval. */
    public void refused(String key, String message, Object... args) {
        long now = System.currentTimeMillis();
        Long last = lastLogged.get(key);
        if (last != null && now - last < intervalMillis) {
            return;
        }
        if (lastLogged.size() >= MAX_KEYS) {
            lastLogged.clear();
        }
        lastLogged.put(key, now);
        LOG.info(message, args);
    }
}
