package org.fleetpipe.teltonika.registry.janitor;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redis.BackgroundThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the janitor on its own thread, every interval plus a little random jitter. A failing pass
 * is logged and counted, and the next one is scheduled all the same: nothing stops the ticker.
 */
public final class JanitorTicker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JanitorTicker.class);

    private final RegistryJanitor janitor;
    private final JanitorSettings settings;
    private final JanitorMetrics metrics;
    private final ScheduledExecutorService thread;

    public JanitorTicker(RegistryJanitor janitor, JanitorSettings settings, JanitorMetrics metrics) {
        this.janitor = janitor;
        this.settings = settings;
        this.metrics = metrics;
        this.thread = BackgroundThreads.single("janitor");
    }

    public void start() {
        schedule();
    }

    private void schedule() {
        long base = settings.interval().toMillis();
        long jitter = (long) (base * settings.jitter() * ThreadLocalRandom.current().nextDouble());
        try {
            thread.schedule(this::tick, base + jitter, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // closed meanwhile
        }
    }

    /** One pass with its summary line; package-private so tests can drive it without waiting. */
    void tick() {
        try {
            SweepResult r = janitor.sweepOnce();
            LOG.info("janitor pass{}: scanned={} instances={} dead={} {}={} {} errors={} elapsed={}ms{}",
                    r.dryRun() ? " (dry run)" : "", r.scanned(), r.instances(), r.deadInstances(),
                    r.dryRun() ? "would-evict" : "evicted", r.evicted(), r.leftoversSummary(), r.errors(),
                    r.elapsed().toMillis(),
                    r.evictedByInstance().isEmpty() ? "" : " by-instance=" + r.evictedByInstance());
        } catch (Throwable t) {
            metrics.failedPass();
            LOG.warn("janitor pass failed, next one in {}: {}", settings.interval(), t.toString());
        } finally {
            schedule();
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
