package org.fleetpipe.teltonika.simulator.report;

import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The part of a run after its warm-up, when logins are done and the JIT has compiled the hot code.
 *
 * @param warmup     how long the warm-up was
 * @param atStart    the counters when the warm-up ended
 * @param startNanos System.nanoTime when the warm-up ended
 * @param latency    the ACK latencies recorded since, in microseconds
 */
public record SteadyPhase(Duration warmup, StatsSnapshot atStart, long startNanos, Histogram latency) {

    /** Records acknowledged per second from the warm-up's end to the latest ACK. */
    public double recordsPerSecond(StatsSnapshot end) {
        if (end.lastAckNanos() <= startNanos) {
            return 0;
        }
        return (end.recordsAcknowledged() - atStart.recordsAcknowledged()) * 1e9 / (end.lastAckNanos() - startNanos);
    }
}
