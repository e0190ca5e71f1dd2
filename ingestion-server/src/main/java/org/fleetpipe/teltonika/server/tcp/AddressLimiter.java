package org.fleetpipe.teltonika.server.tcp;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Caps per source address: connections open at once, and new connections per second. Both off
 * at 0 (the default), because a carrier's NAT can put many real devices behind one address.
 */
final class AddressLimiter {

    private final int maxOpen;
    private final int maxNewPerSecond;
    // Counts change only inside compute calls, so a close that takes a count to zero (and removes
    // it) cannot race an open of the same address into a counter no longer in the map.
    private final Map<InetAddress, Integer> open = new ConcurrentHashMap<>();
    private final Map<InetAddress, long[]> newThisSecond = new ConcurrentHashMap<>();

    AddressLimiter(int maxOpen, int maxNewPerSecond) {
        this.maxOpen = maxOpen;
        this.maxNewPerSecond = maxNewPerSecond;
    }

    /** Counts a new connection; null when it is within the caps, else why not. */
    String opened(InetAddress address) {
        if (address == null) {
            return null;
        }
        if (maxNewPerSecond > 0) {
            long second = System.currentTimeMillis() / 1000;
            long[] window = newThisSecond.compute(address, (a, w) -> w == null || w[0] != second
                    ? new long[] {second, 1} : new long[] {second, w[1] + 1});
            if (window[1] > maxNewPerSecond) {
                return "more than " + maxNewPerSecond + " new connections per second from " + address.getHostAddress();
            }
            if (newThisSecond.size() > 100_000) {
                newThisSecond.entrySet().removeIf(e -> e.getValue()[0] != second);
            }
        }
        if (maxOpen > 0) {
            int now = open.merge(address, 1, Integer::sum);
            if (now > maxOpen) {
                closed(address);
                return "more than " + maxOpen + " connections from " + address.getHostAddress();
            }
        }
        return null;
    }

    /** The connection of an address that {@link #opened} accepted has ended. */
    void closed(InetAddress address) {
        if (address == null || maxOpen <= 0) {
            return;
        }
        open.computeIfPresent(address, (a, count) -> count <= 1 ? null : count - 1);
    }
}
