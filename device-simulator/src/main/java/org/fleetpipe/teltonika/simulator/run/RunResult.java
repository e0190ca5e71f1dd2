package org.fleetpipe.teltonika.simulator.run;

import org.HdrHistogram.Histogram;
import org.fleetpipe.teltonika.simulator.report.StatsSnapshot;

/**
 * How a run ended.
 *
 * @param latency  every ACK latency of the run, in microseconds
 * @param exitCode as {@link org.fleetpipe.teltonika.simulator.report.SummaryReport#exitCode}
 */
public record RunResult(StatsSnapshot stats, Histogram latency, int exitCode) {
}
