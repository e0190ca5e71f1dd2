package org.fleetpipe.teltonika.server.ops;

import java.time.Duration;

/**
 * Queue health thresholds, dead-letter ageing and purging, and the switches of a staged rollout.
 *
 * @param healthInterval         how often queue health is computed
 * @param stuckAfter             a queued or in-flight command older than this counts as stuck
 * @param commandsDegradedSize   command queue size from which its status is degraded
 * @param commandsUnhealthySize  ... unhealthy
 * @param deadLettersDegradedSize dead-letter set size from which its status is degraded
 * @param deadLettersUnhealthySize ... unhealthy
 * @param unhealthyStuck         stuck commands from which a queue is unhealthy (1 already degrades it)
 * @param deadLetterTtl          dead letters older than this are purged
 * @param purgeInterval          how often the automatic purge runs
 * @param orphanScanPerPass      command hashes the purge inspects per pass (SCAN, bounded)
 * @param deadLettersEnabled     refused frames are stored in dlq:frames (false: counted only); failed
 *                               commands always are, in their hash and in dlq:commands
 * @param queueHealthEnabled     the queue health job runs
 * @param purgeMode              what the scheduled purge does
 */
public record OpsSettings(Duration healthInterval, Duration stuckAfter, long commandsDegradedSize,
                          long commandsUnhealthySize, long deadLettersDegradedSize, long deadLettersUnhealthySize,
                          long unhealthyStuck, Duration deadLetterTtl, Duration purgeInterval, int orphanScanPerPass,
                          boolean deadLettersEnabled, boolean queueHealthEnabled, PurgeMode purgeMode) {
}
