package org.fleetpipe.teltonika.janitor;

import java.time.Duration;

/**
 * How the janitor runs.
 *
 * @param interval  time between passes (plus jitter)
 * @param jitter    fraction of the interval added at random, so N replicas do not sweep in step
 * @param dryRun    report what would be evicted, evict nothing
 * @param scanCount HSCAN page size (COUNT hint)
 */
public record JanitorSettings(Duration interval, double jitter, boolean dryRun, int scanCount) {

    public JanitorSettings {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("janitor interval must be positive");
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("janitor jitter must be within 0..1");
        }
        if (scanCount < 1) {
            throw new IllegalArgumentException("janitor scan count must be positive");
        }
    }
}
