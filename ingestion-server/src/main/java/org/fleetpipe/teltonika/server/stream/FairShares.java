package org.fleetpipe.teltonika.server.stream;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Max-min fair shares of a budget of stream entries, for networks and then for the devices of each
 * network: the water level up to which every user is served in full, so that one using less than the
 * level is never cut for another's use, and those above it are the heaviest. Pure.
 */
public final class FairShares {

    /** No level: everybody fits in the budget. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private FairShares() {
    }

    /**
     * The levels for {@code budget} entries over networks (keys) whose devices use the given entries:
     * {@code network} is the networks' level; a network at or over it has its part (the level) divided
     * among its devices, {@code deviceLevels} giving that level (absent: the network is under its share).
     */
    public record Levels<K>(long network, Map<K, Long> deviceLevels) {

        /** The level of one device of {@code key}: {@link #UNLIMITED} when its network is within its share. */
        public long device(K key) {
            Long level = deviceLevels.get(key);
            return level == null ? UNLIMITED : level;
        }
    }

    /**
     * The largest level L with the uses, each counted up to L, adding up to at most {@code budget};
     * {@link #UNLIMITED} when all of them together use less. When they use it exactly, the largest
     * use: nobody grows past the heaviest, who is held first.
     */
    public static long level(long budget, long[] uses) {
        long[] sorted = uses.clone();
        Arrays.sort(sorted);
        long left = Math.max(0, budget);
        for (int i = 0; i < sorted.length; i++) {
            long users = sorted.length - i;
            // Everybody from here on uses at least sorted[i]: if that much each does not fit, the rest share what is left.
            if (sorted[i] > left / users) {
                return left / users;
            }
            left -= sorted[i];
        }
        return left > 0 || sorted.length == 0 ? UNLIMITED : sorted[sorted.length - 1];
    }

    /** The two levels: {@code budget} over the networks' totals, then each network's level over its devices. */
    public static <K> Levels<K> of(long budget, Map<K, long[]> devicesByNetwork) {
        long[] totals = new long[devicesByNetwork.size()];
        int i = 0;
        for (long[] devices : devicesByNetwork.values()) {
            totals[i++] = sum(devices);
        }
        long network = level(budget, totals);
        Map<K, Long> deviceLevels = new HashMap<>();
        if (network != UNLIMITED) {
            for (Map.Entry<K, long[]> e : devicesByNetwork.entrySet()) {
                if (sum(e.getValue()) >= network) {
                    deviceLevels.put(e.getKey(), level(network, e.getValue()));
                }
            }
        }
        return new Levels<>(network, deviceLevels);
    }

    static long sum(long[] uses) {
        long sum = 0;
        for (long u : uses) {
            sum += u;
        }
        return sum;
    }
}
