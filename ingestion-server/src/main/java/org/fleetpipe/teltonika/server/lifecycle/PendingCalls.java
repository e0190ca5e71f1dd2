package org.fleetpipe.teltonika.server.lifecycle;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Counts work under way (Redis calls, and packets from their write until their ACK is written),
 * so a clean stop can wait for it before it closes device connections and Redis.
 */
public final class PendingCalls {

    private final AtomicInteger pending = new AtomicInteger();
    private final Object idle = new Object();

    public <T> CompletionStage<T> track(Supplier<CompletionStage<T>> call) {
        begin();
        CompletionStage<T> result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            end();
            throw e;
        }
        return result.whenComplete((v, e) -> end());
    }

    /** One more piece of work under way; every begin() needs exactly one end(). */
    public void begin() {
        pending.incrementAndGet();
    }

    public void end() {
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
