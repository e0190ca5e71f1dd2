package org.fleetpipe.teltonika.server.tcp;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connections that have not logged in yet, in all and per source address, each under its cap.
 * Smaller than the connection cap, so hosts that connect and never log in cannot take the places
 * of devices; the per-address cap is on by default, unlike the caps on logged-in connections,
 * because a login takes milliseconds even for devices behind a carrier's NAT.
 */
final class PreLoginCounts {

    private final int max;
    private final AtomicInteger total = new AtomicInteger();
    private final AddressLimiter perAddress;

    PreLoginCounts(int max, int maxPerAddress) {
        this.max = max;
        this.perAddress = new AddressLimiter(maxPerAddress, 0);
    }

    /** Counts a new connection; null when it is within the caps, else why not (and nothing is counted). */
    String entered(InetAddress address) {
        if (total.incrementAndGet() > max) {
            total.decrementAndGet();
            return "more than " + max + " connections not logged in";
        }
        String overAddressCap = perAddress.opened(address);
        if (overAddressCap != null) {
            total.decrementAndGet();
            return overAddressCap + " not logged in";
        }
        return null;
    }

    /** A connection that {@link #entered} accepted logged in or ended. */
    void left(InetAddress address) {
        total.decrementAndGet();
        perAddress.closed(address);
    }

    int count() {
        return total.get();
    }
}
