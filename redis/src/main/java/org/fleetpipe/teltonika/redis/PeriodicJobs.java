package org.fleetpipe.teltonika.redis;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one scheduler of an instance's periodic jobs (sweeps, retention, queue health, the janitor,
 * certificate reloads), which may block on Redis. A few threads, so that one slow pass delays the
 * others by no more than its own run; the heartbeat keeps a thread of its own, so no pass can make
 * an instance look dead. A job's next run is planned when its run ends: a job never runs twice at
 * once, and one that throws is logged and runs again all the same.
 */
public final class PeriodicJobs implements Executor, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeriodicJobs.class);

    private final ScheduledThreadPoolExecutor executor;

    /** {@code threads} daemon threads named {@code name-1} and so on: a job still planned never keeps the JVM up. */
    public PeriodicJobs(String name, int threads) {
        AtomicInteger numbers = new AtomicInteger();
        this.executor = new ScheduledThreadPoolExecutor(threads, r -> {
            Thread t = new Thread(r, name + "-" + numbers.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code pass} first after {@code first}, then {@code every} after each run ended. */
    public Job start(String name, Duration first, Duration every, Runnable pass) {
        return start(name, first, () -> every, pass);
    }

    /** As above, with the gap after each run asked of {@code next} (a janitor's jitter, say). */
    public Job start(String name, Duration first, Supplier<Duration> next, Runnable pass) {
        Job job = new Job(name, next, pass);
        job.plan(first);
        return job;
    }

    /** A random part of {@code period}: replicas started together spread their first passes over it. */
    public static Duration randomPartOf(Duration period) {
        return Duration.ofMillis(ThreadLocalRandom.current().nextLong(Math.max(1, period.toMillis())));
    }

    /** Runs one task soon (an on-demand pass for the API, off the caller's event loop). */
    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /** Stops every job; a run under way is interrupted, and waited for a moment. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One periodic job; stopping it leaves the others running. */
    public final class Job {
        private final String name;
        private final Supplier<Duration> next;
        private final Runnable pass;
        private final ReentrantLock running = new ReentrantLock();
        private volatile boolean stopped;
        private volatile ScheduledFuture<?> planned;

        private Job(String name, Supplier<Duration> next, Runnable pass) {
            this.name = name;
            this.next = next;
            this.pass = pass;
        }

        private void plan(Duration delay) {
            if (stopped) {
                return;
            }
            try {
                planned = executor.schedule(this::run, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // The scheduler closed meanwhile: nothing more to run.
            }
        }

        private void run() {
            running.lock();
            try {
                if (stopped) {
                    return;
                }
                pass.run();
            } catch (Throwable t) {
                // The job's own handling missed it; anything escaping would end the job for good.
                LOG.warn("periodic job {} failed, it runs again: {}", name, t.toString());
            } finally {
                running.unlock();
            }
            plan(next.get());
        }

        /** No run after this one; a run under way is interrupted. */
        public void stop() {
            stopped = true;
            ScheduledFuture<?> current = planned;
            if (current != null) {
                current.cancel(true);
            }
        }

        /** As {@link #stop()}, then waits for a run under way to end, so nothing of the job runs after this. */
        public void stopAndWait(Duration atMost) {
            stop();
            try {
                if (running.tryLock(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
                    running.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
