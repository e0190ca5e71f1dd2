package org.fleetpipe.teltonika.server.health;

import java.time.Duration;

/**
 * When the command queues are healthy, degraded or unhealthy, and how often that is computed.
 *
 * @param enabled               the queue health job runs
 * @param interval              how often queue health is computed (and health:queues written, by one instance)
 * @param stuckAfter            a queued command of an online device with nothing in flight that waited longer than
 *                              this is stuck; commands of offline devices never are
 * @param inFlightMargin        a command in flight longer than the reply timeout plus this is stuck
 * @param commandsDegradedSize  commands due (queued for an online device, or in flight) from which a command queue
 *                              is degraded
 * @param commandsUnhealthySize ... unhealthy
 * @param degradedStuck         stuck commands from which a command queue is degraded
 * @param unhealthyStuck        stuck commands from which a command queue is unhealthy
 * @param deadLetterWindow      the window over which new dead letters are counted
 * @param deadLettersDegraded   new dead letters within {@code deadLetterWindow} from which their queue is degraded
 *                              (setting {@code dead-letters-degraded-size}: the name of old, when it was the size)
 * @param deadLettersUnhealthy  ... unhealthy
 */
public record QueueHealthSettings(boolean enabled, Duration interval, Duration stuckAfter, Duration inFlightMargin,
                                  long commandsDegradedSize, long commandsUnhealthySize, long degradedStuck,
                                  long unhealthyStuck, Duration deadLetterWindow, long deadLettersDegraded,
                                  long deadLettersUnhealthy) {
}
