package org.fleetpipe.teltonika.server.parts;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.server.metrics.MetricsBootstrap;
import org.fleetpipe.teltonika.server.tcp.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The device listeners' event loops (accept, io) and the one scheduler of the periodic jobs. */
public final class ThreadsPart implements Part {

    /** Two: one slow pass (a janitor SCAN over a large registry, say) never holds up the stream's retention. */
    private static final int PERIODIC_THREADS = 2;
    private static final Logger LOG = LoggerFactory.getLogger(ThreadsPart.class);

    private final Shared shared;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private PeriodicJobs jobs;

    public ThreadsPart(Shared shared) {
        this.shared = shared;
    }

    @Override
    public void start() {
        Transports.unexpectedFallback().ifPresent(cause -> LOG.warn("native epoll transport unavailable, "
                + "running on NIO (more CPU and allocation per packet): {}", cause));
        jobs = new PeriodicJobs("periodic", PERIODIC_THREADS);
        boss = Transports.group(1, new DefaultThreadFactory("accept", false));
        workers = Transports.group(shared.settings().listeners().ioThreadCount(), new DefaultThreadFactory("io", false));
        MetricsBootstrap.eventLoops(shared.registry(), workers);
    }

    EventLoopGroup boss() {
        return boss;
    }

    EventLoopGroup workers() {
        return workers;
    }

    PeriodicJobs jobs() {
        return jobs;
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) throws InterruptedException {
        if (stage != StopStage.CLOSE_THREADS) {
            return;
        }
        shutDown(workers);
        shutDown(boss);
        if (jobs != null) {
            jobs.close();
        }
    }

    /** Shuts a group down within a few seconds: a quiet period of none, nothing more to run. */
    static void shutDown(EventLoopGroup group) throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }
}
