package org.fleetpipe.teltonika.server.stream;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.limits.NetworkKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log line about packets held for a fair share of the stream: at most one per interval, naming
 * the heaviest device held and its network, as such holds come and go often. Logged under
 * {@link TelemetryBackpressure}'s name, where operators look for the stream's holds.
 */
final class ShareHoldLog {

    private static final Logger LOG = LoggerFactory.getLogger(TelemetryBackpressure.class);
    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final StreamShares shares;
    private final AtomicLong sinceLogged = new AtomicLong();
    private long loggedAtNanos;

    ShareHoldLog(StreamShares shares) {
        this.shares = shares;
    }

    /** A packet was held for a share. Any thread. */
    void held() {
        sinceLogged.incrementAndGet();
    }

    /**
     * Logs what was held since the last line, if an interval passed; {@code heaviestHeld} finds the
     * heaviest device held now (null: none). The retention thread only.
     */
    void maybeLog(long nowNanos, Supplier<Imei> heaviestHeld, long networkShareTotal, long deviceShareTotal) {
        if (nowNanos - loggedAtNanos < EVERY_NANOS || sinceLogged.get() == 0) {
            return;
        }
        loggedAtNanos = nowNanos;
        long count = sinceLogged.getAndSet(0);
        Imei heaviest = heaviestHeld.get();
        InetAddress network = heaviest == null ? null : shares.networkOf(heaviest);
        long level = shares.networkLevel();
        LOG.warn("{} packets held for devices over their fair share of the telemetry stream (past "
                + "TELEMETRY_FAIR_SHARE_FROM, {} entries unread: {} network-share, {} device-share since start); "
                + "a network's fair share now about {} entries; heaviest held imei={} with about {} entries unread, "
                + "its network {} about {}; the devices within their share are acknowledged", count,
                shares.threshold(), networkShareTotal, deviceShareTotal,
                level == FairShares.UNLIMITED ? "unlimited" : Long.toString(level),
                heaviest == null ? "-" : heaviest.value(), heaviest == null ? 0 : shares.estimate(heaviest),
                network == null ? "unknown" : NetworkKey.label(network),
                heaviest == null ? 0 : shares.networkEstimate(heaviest));
    }
}
