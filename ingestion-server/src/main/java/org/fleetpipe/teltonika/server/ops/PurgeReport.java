package org.fleetpipe.teltonika.server.ops;

/**
 * What one purge removed (or, in a dry run, would remove).
 *
 * @param expiredCommands   queued commands whose TTL passed, failed into the dead letters
 * @param orphanedCommands  command hashes nothing would ever deliver, failed into the dead letters
 * @param frameDeadLetters  frame dead letters older than their TTL, removed
 * @param commandDeadLetters command dead letters older than their TTL, removed
 */
public record PurgeReport(boolean dryRun, long expiredCommands, long orphanedCommands, long frameDeadLetters,
                          long commandDeadLetters, long elapsedMs) {

    public long total() {
        return expiredCommands + orphanedCommands + frameDeadLetters + commandDeadLetters;
    }
}
