package org.fleetpipe.teltonika.server.command;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic pass over the command queues, every {@code commands.sweep-interval}: fails the queued
 * commands whose TTL passed and wakes the devices of the page that are connected here, for an
 * enqueue whose message this instance missed. Each pass takes the next page of queued devices, so
 * every device is reached in time, and the next page of this instance's own in-flight commands
 * ({@link InFlightCheck}): those no send of its own will end go back to their queues.
 */
public final class CommandSweep implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CommandSweep.class);
    /** Devices with queued commands looked at per pass. */
    private static final int PAGE = 1000;

    private final CommandExpiry expiry;
    private final InFlightCheck inFlight;
    private final Consumer<String> wake;
    private final Duration interval;
    private final Duration timeout;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;
    private long offset;

    /** {@code wake} drains a device's queue if it is connected here (the dispatcher's). */
    public CommandSweep(CommandExpiry expiry, InFlightCheck inFlight, Consumer<String> wake, CommandSettings settings,
                        Duration timeout, PeriodicJobs jobs) {
        this.expiry = expiry;
        this.inFlight = inFlight;
        this.wake = wake;
        this.interval = settings.sweepInterval();
        this.timeout = timeout;
        this.jobs = jobs;
    }

    public void start() {
        job = jobs.start("command-sweep", PeriodicJobs.randomPartOf(interval), interval, this::sweep);
    }

    /** One pass on the caller's thread (it blocks: never an event loop); a failed half does not stop the other. */
    void sweep() {
        try {
            sweepQueues();
        } catch (RuntimeException e) {
            LOG.warn("command sweep failed: {}", e.toString());
        }
        try {
            inFlight.checkPage();
        } catch (RuntimeException e) {
            LOG.warn("in-flight check failed: {}", e.toString());
        }
    }

    private void sweepQueues() {
        List<String> page = Blocking.await(expiry.queuedDevices(offset, PAGE), timeout);
        offset = page.size() < PAGE ? 0 : offset + PAGE;
        for (String imei : page) {
            expiry.expireQueued(imei, false);
            wake.accept(imei);
        }
    }

    @Override
    public void close() {
        if (job != null) {
            job.stop();
        }
    }
}
