package org.fleetpipe.teltonika.server.admission;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.server.limits.NetworkKey;
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

    /**
     * The key for refusals counted per source: the host address alone. With the port, every new
     * connection of one host (each has a port of its own) would be logged again.
     */
    public static String addressKey(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : String.valueOf(remote);
    }

    /** The key for refusals counted per source network (/24, /64): one line per network, however many addresses it spoofs. */
    public static String networkKey(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null
                ? NetworkKey.label(inet.getAddress()) : String.valueOf(remote);
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
