package org.fleetpipe.teltonika.server.health;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How many entries left a queue between two passes, from what the passes saw: a lower bound, since
 * an entry that came and went between them is never seen.
 */
final class Departures {

    /** One device's queue as a pass saw it. */
    record Queue(long length, String head) {
    }

    private Departures() {
    }

    /**
     * Commands that left the devices' queues: all of a queue that is gone (emptied; the window holds
     * the oldest queues, so a queue leaves it only by emptying), at least one of a queue whose head
     * changed, and what a queue shrank by.
     */
    static long pendingLeft(Map<String, Queue> before, Map<String, Queue> now) {
        long left = 0;
        for (Map.Entry<String, Queue> e : before.entrySet()) {
            Queue was = e.getValue();
            Queue is = now.get(e.getKey());
            if (is == null) {
                left += was.length();
            } else if (!Objects.equals(was.head(), is.head())) {
                left += Math.max(1, was.length() - is.length());
            } else {
                left += Math.max(0, was.length() - is.length());
            }
        }
        return left;
    }

    /** In-flight entries ({@code instance imei id:attempt}) seen before and not now. */
    static long inFlightLeft(Set<String> before, Set<String> now) {
        long left = 0;
        for (String entry : before) {
            if (!now.contains(entry)) {
                left++;
            }
        }
        return left;
    }

    static double perMinute(long count, long elapsedMs) {
        if (elapsedMs <= 0) {
            return 0;
        }
        return Math.round(count * 60_000.0 / elapsedMs * 100) / 100.0;
    }
}
