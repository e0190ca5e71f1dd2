package org.fleetpipe.teltonika.janitor;

import java.time.Duration;
import java.util.Map;

/**
 * What one janitor pass saw and did.
 *
 * @param evictedByInstance fields really removed (or, in a dry run, that would be), per dead instance id
 * @param commandsHandedBack sent-but-unanswered commands of dead instances returned to their queues
 * @param commandsFailed     such commands that had used all their sends, failed as {@code attempts}
 */
public record SweepResult(long scanned, int instances, int deadInstances, long evicted, long errors,
                          Duration elapsed, boolean dryRun, Map<String, Long> evictedByInstance,
                          long commandsHandedBack, long commandsFailed) {

    public SweepResult {
        evictedByInstance = Map.copyOf(evictedByInstance);
    }
}
