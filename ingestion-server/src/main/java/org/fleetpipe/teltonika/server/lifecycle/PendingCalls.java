package org.fleetpipe.teltonika.server.lifecycle;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Counts asynchronous calls under way, so a clean stop can wait for them before it closes Redis. */
public final class PendingCalls {

    private final AtomicInteger pending = new AtomicInteger();
    private final Object idle = new Object();

    public <T> CompletionStage<T> track(Supplier<CompletionStage<T>> call) {
        pending.incrementAndGet();
        CompletionStage<T> result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            done();
            throw e;
        }
        return result.whenComplete((v, e) -> done());
    }

    private void done() {
        if (pending.decrementAndGet() == 0) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }

    public int pending() {
        return pending.get();
    }

    /** Blocks (never call it on an event loop) until nothing is pending; false if the timeout passed first. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (pending.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                idle.wait(Math.max(1, left / 1_000_000));
            }
        }
        return true;
    }
}
