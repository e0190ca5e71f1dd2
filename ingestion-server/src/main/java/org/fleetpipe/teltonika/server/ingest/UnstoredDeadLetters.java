package org.fleetpipe.teltonika.server.ingest;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frame dead letters with {@code DLQ_ENABLED=false}: a refused frame is counted
 * ({@code teltonika_dead_letters_dropped_total{reason="disabled"}}, besides frames_rejected) and
 * logged, at most one line a minute with the count since the last one, and never stored. Failed
 * commands are not frames: they always go to their hash and dlq:commands.
 */
public final class UnstoredDeadLetters implements FrameDeadLetters {

    private static final Logger LOG = LoggerFactory.getLogger(UnstoredDeadLetters.class);
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
    private static final long LOG_EVERY_NANOS = 60_000_000_000L;

    private final IngestionMetrics metrics;
    private final AtomicLong unlogged = new AtomicLong();
    private final AtomicLong nextLogAt = new AtomicLong(System.nanoTime());

    public UnstoredDeadLetters(IngestionMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public CompletionStage<Void> record(FrameOrigin origin, String reason, String detail, ByteBuf bytes) {
        metrics.deadLetterDropped("disabled");
        unlogged.incrementAndGet();
        long now = System.nanoTime();
        long due = nextLogAt.get();
        if (now - due >= 0 && nextLogAt.compareAndSet(due, now + LOG_EVERY_NANOS)) {
            LOG.info("refused frame(s) not stored in dlq:frames: DLQ_ENABLED=false count={} last-reason={} "
                    + "last-imei={}", unlogged.getAndSet(0), reason, origin.imei());
        }
        return DONE;
    }
}
