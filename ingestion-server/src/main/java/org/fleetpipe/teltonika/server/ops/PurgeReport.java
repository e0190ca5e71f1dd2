package org.fleetpipe.teltonika.server.ops;

/**
 * What one purge removed (or, in a dry run, would remove). Queued commands past their TTL are not
 * the purge's: the command sweep fails them (command TTL is part of the command contract).
 *
 * @param orphanedCommands  command hashes nothing would ever deliver, failed into the dead letters
 * @param frameDeadLetters  frame dead letters older than their TTL, removed
 * @param commandDeadLetters command dead letters older than their TTL, removed
 */
public record PurgeReport(boolean dryRun, long orphanedCommands, long frameDeadLetters, long commandDeadLetters,
                          long elapsedMs) {

    public long total() {
        return orphanedCommands + frameDeadLetters + commandDeadLetters;
    }

    /** {@code dry-run} or {@code live}, as the metrics' {@code mode} label says it. */
    public PurgeMode mode() {
        return PurgeMode.ofPass(dryRun);
    }
}
