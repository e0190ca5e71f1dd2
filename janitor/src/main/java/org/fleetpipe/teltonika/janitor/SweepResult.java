package org.fleetpipe.teltonika.janitor;

import java.time.Duration;
import java.util.Map;

/**
 * What one janitor pass saw and did.
 *
 * @param evictedByInstance   fields really removed (or, in a dry run, that would be), per dead instance id
 * @param leftoversHandedBack what dead instances left behind, given back to be done (e.g. commands they
 *                            sent and got no reply for, back in their queues): {@link InstanceLeftovers}
 * @param leftoversFailed     such leftovers failed for good instead
 * @param leftoversSummary    the hook's words for both, in the pass log line
 */
public record SweepResult(long scanned, int instances, int deadInstances, long evicted, long errors,
                          Duration elapsed, boolean dryRun, Map<String, Long> evictedByInstance,
                          long leftoversHandedBack, long leftoversFailed, String leftoversSummary) {

    public SweepResult {
        evictedByInstance = Map.copyOf(evictedByInstance);
    }
}
