package org.fleetpipe.teltonika.janitor;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the janitor on the instance's periodic jobs, every interval plus a little random jitter. A
 * failing pass is logged and counted, and the next one comes all the same: nothing stops the ticker.
 */
public final class JanitorTicker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JanitorTicker.class);

    private final RegistryJanitor janitor;
    private final JanitorSettings settings;
    private final JanitorMetrics metrics;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;

    public JanitorTicker(RegistryJanitor janitor, JanitorSettings settings, JanitorMetrics metrics, PeriodicJobs jobs) {
        this.janitor = janitor;
        this.settings = settings;
        this.metrics = metrics;
        this.jobs = jobs;
    }

    public void start() {
        if (settings.dryRun()) {
            LOG.warn("janitor: JANITOR_DRY_RUN=true, passes only report what they would do; paused={} "
                    + "(dead instances' registry entries stay, their in-flight commands are neither handed back "
                    + "nor failed, their ids stay in instance:ids)", janitor.pausedInDryRun());
        }
        job = jobs.start("janitor", nextGap(), this::nextGap, this::tick);
    }

    /** The interval plus up to {@code jitter} of it: replicas' passes drift apart instead of piling up. */
    private Duration nextGap() {
        long base = settings.interval().toMillis();
        return Duration.ofMillis(base + (long) (base * settings.jitter() * ThreadLocalRandom.current().nextDouble()));
    }

    /** One pass with its summary line; package-private so tests can drive it without waiting. */
    void tick() {
        try {
            LOG.info(line(janitor.sweepOnce()));
        } catch (Throwable t) {
            metrics.failedPass();
            LOG.warn("janitor pass failed, next one in {}: {}", settings.interval(), t.toString());
        }
    }

    /** The pass's log line; a dry run's names what it paused (its leftovers summary says so). */
    static String line(SweepResult r) {
        return String.format("janitor pass%s: scanned=%d instances=%d dead=%d %s=%d %s errors=%d elapsed=%dms%s",
                r.dryRun() ? " (dry run)" : "", r.scanned(), r.instances(), r.deadInstances(),
                r.dryRun() ? "would-evict" : "evicted", r.evicted(), r.leftoversSummary(), r.errors(),
                r.elapsed().toMillis(), r.evictedByInstance().isEmpty() ? "" : " by-instance=" + r.evictedByInstance());
    }

    @Override
    public void close() {
        if (job != null) {
            job.stop();
        }
    }
}
