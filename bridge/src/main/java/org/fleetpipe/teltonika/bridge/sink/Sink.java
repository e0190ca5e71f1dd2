package org.fleetpipe.teltonika.bridge.sink;

import java.util.List;

/**
 * Where the bridge delivers records. A sink reports on every record instead of throwing: the
 * bridge acknowledges a stream entry only after its outcome is {@link Outcome.Kind#DELIVERED} or,
 * for a refusal, after the dead-letter write.
 */
public interface Sink extends AutoCloseable {

    /** The sink's name in metrics and logs: {@code kafka}, {@code http}, {@code mqtt}, {@code postgres}. */
    String name();

    /**
     * Called once before the first delivery: throws an {@link IllegalStateException} naming what
     * would make every delivery fail until someone changes the sink (a PostgreSQL table of another
     * shape), so the bridge does not start. A sink that is away is no reason: its records wait.
     */
    default void prepare() {
    }

    /**
     * Sends the records, in their order, and waits until the sink confirmed or refused each one.
     * Called by one lane at a time per batch; lanes call it concurrently.
     *
     * @return one outcome per record, in the batch's order
     */
    List<Outcome> deliver(List<OutboundRecord> batch) throws InterruptedException;

    @Override
    void close();
}
