package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PeriodicJobsTest {

    private final PeriodicJobs jobs = new PeriodicJobs("test-periodic", 2);

    @AfterEach
    void close() {
        jobs.close();
    }

    @Test
    void aJobThatThrows_runsAgain() {
        AtomicInteger runs = new AtomicInteger();
        jobs.start("throws", Duration.ZERO, Duration.ofMillis(5), () -> {
            runs.incrementAndGet();
            throw new IllegalStateException("boom");
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 3);
    }

    @Test
    void aSlowJob_doesNotHoldBackAnother() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        jobs.start("slow", Duration.ZERO, Duration.ofMillis(5), () -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        AtomicInteger fast = new AtomicInteger();
        jobs.start("fast", Duration.ZERO, Duration.ofMillis(5), fast::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> fast.get() >= 5);
        release.countDown();
    }

    @Test
    void aJob_neverRunsTwiceAtOnce() {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        jobs.start("one-at-a-time", Duration.ZERO, Duration.ZERO, () -> {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            runs.incrementAndGet();
            Thread.onSpinWait();
            inside.decrementAndGet();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 200);
        assertThat(most.get()).isEqualTo(1);
    }

    @Test
    void stopAndWait_returnsAfterTheRunUnderWay_andNoRunFollows() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger interrupted = new AtomicInteger();
        PeriodicJobs.Job job = jobs.start("stopped", Duration.ZERO, Duration.ofMillis(1), () -> {
            runs.incrementAndGet();
            inside.countDown();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
            }
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        job.stopAndWait(Duration.ofSeconds(10));
        assertThat(interrupted.get()).isEqualTo(1);
        int after = runs.get();
        // Another job's runs are the clock: several of them pass, and the stopped one stays stopped.
        AtomicInteger ticks = new AtomicInteger();
        jobs.start("clock", Duration.ZERO, Duration.ofMillis(2), ticks::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> ticks.get() >= 20);
        assertThat(runs.get()).isEqualTo(after);
    }
}
