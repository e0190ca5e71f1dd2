package org.fleetpipe.teltonika.server.ops;

import java.time.Duration;

/**
 * Queue health thresholds, dead-letter ageing and purging, and the switches of a staged rollout.
 *
 * @param healthInterval         how often queue health is computed (and health:queues written, by one instance)
 * @param stuckAfter             a queued command of an online device with nothing in flight that waited longer than
 *                               this is stuck; commands of offline devices never are
 * @param commandsDegradedSize   commands due (queued for an online device, or in flight) from which a command queue
 *                               is degraded
 * @param commandsUnhealthySize  ... unhealthy
 * @param deadLettersDegraded    new dead letters within {@code deadLetterWindow} from which their queue is degraded
 *                               (setting {@code dead-letters-degraded-size}: the name of old, when it was the size)
 * @param deadLettersUnhealthy   ... unhealthy
 * @param unhealthyStuck         stuck commands from which a command queue is unhealthy
 * @param degradedStuck          stuck commands from which a command queue is degraded
 * @param inFlightMargin         a command in flight longer than the reply timeout plus this is stuck
 * @param deadLetterWindow       the window over which new dead letters are counted
 * @param deadLetterTtl          dead letters older than this are purged
 * @param purgeInterval          how often the automatic purge runs
 * @param orphanScanPerPass      command hashes the purge inspects per pass (SCAN, bounded)
 * @param deadLettersEnabled     refused frames are stored in dlq:frames (false: counted only); failed
 *                               commands always are, in their hash and in dlq:commands
 * @param queueHealthEnabled     the queue health job runs
 * @param purgeMode              what the scheduled purge does
 */
public record OpsSettings(Duration healthInterval, Duration stuckAfter, long commandsDegradedSize,
                          long commandsUnhealthySize, long deadLettersDegraded, long deadLettersUnhealthy,
                          long unhealthyStuck, long degradedStuck, Duration inFlightMargin, Duration deadLetterWindow,
                          Duration deadLetterTtl, Duration purgeInterval, int orphanScanPerPass,
                          boolean deadLettersEnabled, boolean queueHealthEnabled, PurgeMode purgeMode) {
}
