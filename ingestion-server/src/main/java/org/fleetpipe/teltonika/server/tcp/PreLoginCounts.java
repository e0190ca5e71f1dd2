package org.fleetpipe.teltonika.server.tcp;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.fleetpipe.teltonika.server.limits.NetworkKey;

/**
 * Connections that have not logged in yet, in all and per source network (/24, /64), each under its
 * cap. Smaller than the connection cap, so hosts that connect and never log in cannot take the
 * places of devices. When the pool is full, the oldest place is taken back for the newcomer: a
 * login takes milliseconds, so the oldest is the likeliest holder, and holders can no longer lock
 * devices out by filling the pool first. The per-network cap is on by default, unlike the caps on
 * logged-in connections, because a login takes milliseconds even for devices behind a carrier's NAT.
 * Connections of every event loop enter and leave here: one lock, on the accept and login path only.
 */
final class PreLoginCounts {

    /** One connection's place, from {@link #entered} until {@link #left} or its eviction. */
    static final class Place {
        private final InetAddress network;
        private final Runnable evict;
        /** Guarded by the counts: false once left or evicted, so either happens once. */
        private boolean held;

        /** {@code evict} closes the connection (from any thread) when its place is taken back. */
        Place(InetAddress address, Runnable evict) {
            this.network = NetworkKey.of(address);
            this.evict = evict;
        }
    }

    private static final long IN_TRANSIT_NANOS = 1_000_000_000L;

    private final int max;
    private final int maxPerNetwork;
    /** Oldest first (identity: a Place does not override equals). */
    private final Set<Place> pool = new LinkedHashSet<>();
    private final Map<InetAddress, Integer> perNetwork = new HashMap<>();
    /**
     * Per network, connections the accept pace handed on that have not entered yet (registration is
     * an event loop's next task), and when the last was handed on: one that never enters (closed by
     * the connection cap first) stops counting a second after, when the network's count is dropped.
     */
    private final Map<InetAddress, long[]> incoming = new HashMap<>();
    private volatile int count;

    /** {@code maxPerNetwork} 0 = no per-network cap. */
    PreLoginCounts(int max, int maxPerNetwork) {
        this.max = max;
        this.maxPerNetwork = maxPerNetwork;
    }

    /**
     * Takes a place for a new connection, taking back the oldest one when the pool is full (its
     * eviction runs after, outside the lock); null when it entered, else why not (nothing taken).
     */
    String entered(Place place) {
        Place evicted = null;
        synchronized (this) {
            if (maxPerNetwork > 0 && place.network != null
                    && perNetwork.getOrDefault(place.network, 0) >= maxPerNetwork) {
                return "more than " + maxPerNetwork + " connections from " + NetworkKey.label(place.network)
                        + " not logged in";
            }
            if (pool.size() >= max) {
                Iterator<Place> oldest = pool.iterator();
                evicted = oldest.next();
                oldest.remove();
                release(evicted);
            }
            arrived(place.network);
            place.held = true;
            pool.add(place);
            if (place.network != null) {
                perNetwork.merge(place.network, 1, Integer::sum);
            }
            count = pool.size();
        }
        if (evicted != null) {
            evicted.evict.run();
        }
        return null;
    }

    /** A connection that {@link #entered} logged in or ended; nothing when its place was taken back already. */
    synchronized void left(Place place) {
        if (place.held) {
            pool.remove(place);
            release(place);
            count = pool.size();
        }
    }

    /**
     * Connections of {@code network} (a {@link NetworkKey}) that may be handed on now before its cap
     * closes them: the cap less those in, and less those handed on and not entered yet.
     */
    synchronized int roomFor(InetAddress network, long nowNanos) {
        if (maxPerNetwork <= 0) {
            return Integer.MAX_VALUE;
        }
        long inTransit = 0;
        long[] handed = incoming.get(network);
        if (handed != null) {
            if (nowNanos - handed[1] > IN_TRANSIT_NANOS) {
                incoming.remove(network);
            } else {
                inTransit = handed[0];
            }
        }
        return (int) Math.max(0, maxPerNetwork - perNetwork.getOrDefault(network, 0) - inTransit);
    }

    /** The accept pace handed on a connection of {@code network}: it counts from now until it enters. */
    synchronized void handedOn(InetAddress network, long nowNanos) {
        if (maxPerNetwork > 0) {
            long[] handed = incoming.computeIfAbsent(network, n -> new long[2]);
            handed[0]++;
            handed[1] = nowNanos;
        }
    }

    /** Guarded by the counts: a connection of {@code network} entered, one fewer on its way. */
    private void arrived(InetAddress network) {
        long[] handed = network == null ? null : incoming.get(network);
        if (handed != null && --handed[0] <= 0) {
            incoming.remove(network);
        }
    }

    private void release(Place place) {
        place.held = false;
        if (place.network != null) {
            perNetwork.computeIfPresent(place.network, (n, c) -> c <= 1 ? null : c - 1);
        }
    }

    int count() {
        return count;
    }
}
