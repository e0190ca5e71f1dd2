package org.fleetpipe.teltonika.server.ingest;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;

/** Counts writes under way, so a clean stop can wait for them before it closes Redis. */
public final class InFlightWrites implements TelemetryWriter {

    private final TelemetryWriter delegate;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Object idle = new Object();

    public InFlightWrites(TelemetryWriter delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        inFlight.incrementAndGet();
        CompletionStage<Integer> result;
        try {
            result = delegate.write(imei, packet, receivedAtMillis);
        } catch (RuntimeException e) {
            done();
            throw e;
        }
        return result.whenComplete((n, e) -> done());
    }

    private void done() {
        if (inFlight.decrementAndGet() == 0) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Blocks (never on an event loop) until no write is under way; false if the timeout passed first. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (inFlight.get() > 0) {
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
