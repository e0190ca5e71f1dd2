package org.fleetpipe.teltonika.server.health;

/**
 * The thresholds of the command and dead-letter queues: command queues by their stuck and due
 * commands, dead letters by how many arrived within the window (never by the sets' size, which a
 * burst keeps high for days). Each verdict says why, for the API and the status-change log line.
 */
public final class QueueStatusRules {

    /** A status and the one-line reason for it. */
    public record Verdict(HealthStatus status, String reason) {
    }

    private final QueueHealthSettings settings;

    public QueueStatusRules(QueueHealthSettings settings) {
        this.settings = settings;
    }

    /** A command queue with {@code stuck} commands due and not moving, and {@code due} commands due in all. */
    public Verdict commands(long stuck, long due) {
        if (stuck >= settings.unhealthyStuck()) {
            return new Verdict(HealthStatus.UNHEALTHY, stuck + " stuck >= " + settings.unhealthyStuck());
        }
        if (due >= settings.commandsUnhealthySize()) {
            return new Verdict(HealthStatus.UNHEALTHY, due + " due >= " + settings.commandsUnhealthySize());
        }
        if (stuck >= settings.degradedStuck()) {
            return new Verdict(HealthStatus.DEGRADED, stuck + " stuck >= " + settings.degradedStuck());
        }
        if (due >= settings.commandsDegradedSize()) {
            return new Verdict(HealthStatus.DEGRADED, due + " due >= " + settings.commandsDegradedSize());
        }
        return new Verdict(HealthStatus.HEALTHY, stuck + " stuck, " + due + " due");
    }

    /** A dead-letter set that received {@code added} entries within the window. */
    public Verdict deadLetters(long added) {
        String window = " new in " + settings.deadLetterWindow().toMinutes() + " min";
        if (settings.deadLetterWindow().toMinutes() == 0) {
            window = " new in " + settings.deadLetterWindow().toMillis() + " ms";
        }
        if (added >= settings.deadLettersUnhealthy()) {
            return new Verdict(HealthStatus.UNHEALTHY, added + window + " >= " + settings.deadLettersUnhealthy());
        }
        if (added >= settings.deadLettersDegraded()) {
            return new Verdict(HealthStatus.DEGRADED, added + window + " >= " + settings.deadLettersDegraded());
        }
        return new Verdict(HealthStatus.HEALTHY, added + window);
    }
}
