package org.fleetpipe.teltonika.server.ops;

import java.time.Duration;

/**
 * Dead letters (whether refused frames are stored, how long any are kept) and the scheduled purge.
 *
 * @param deadLettersEnabled refused frames are stored in dlq:frames (false: counted only); failed
 *                           commands always are, in their hash and in dlq:commands
 * @param deadLetterTtl      dead letters older than this are purged
 * @param purgeMode          what the scheduled purge does
 * @param purgeInterval      how often the automatic purge runs
 * @param orphanScanPerPass  command hashes the purge inspects per pass (SCAN, bounded)
 */
public record OpsSettings(boolean deadLettersEnabled, Duration deadLetterTtl, PurgeMode purgeMode,
                          Duration purgeInterval, int orphanScanPerPass) {
}
