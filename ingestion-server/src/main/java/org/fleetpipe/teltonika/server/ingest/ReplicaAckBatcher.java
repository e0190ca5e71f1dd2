package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;

/**
 * {@code ACK_REPLICAS}: a packet is acknowledged only once {@code WAIT} confirms that many replicas
 * hold its entries, so an acknowledged record survives the loss of the primary. WAITs are batched:
 * one WAIT covers every packet whose write was answered before it was sent (Redis confirms
 * replication by offset, and all those writes went first on the same connection), so it costs one
 * round trip per batch, not per packet. The writer must use a connection of its own, because a
 * WAIT blocks the connection it is sent on until it returns.
 */
public final class ReplicaAckBatcher implements TelemetryWriter {

    /** The replicas did not confirm in time: the packet must not be acknowledged. */
    public static final class ReplicasBehind extends RuntimeException {
        ReplicasBehind(long confirmed, int wanted) {
            super(confirmed + " of " + wanted + " replicas confirmed the write in time", null, false, false);
        }
    }

    private record Waiting(CompletableFuture<Integer> ack, int stored) {
    }

    private final TelemetryWriter writer;
    private final RedisAsyncCommands<String, String> redis;
    private final int replicas;
    private final long timeoutMillis;
    private final Runnable shortfall;
    private final Object lock = new Object();
    private List<Waiting> next = new ArrayList<>();
    private boolean waiting;
    private volatile long lastShortfallAt;

    /** {@code shortfall} is told each time a WAIT confirms fewer replicas than wanted (for a metric). */
    public ReplicaAckBatcher(TelemetryWriter writer, RedisAsyncCommands<String, String> redis, int replicas,
                             Duration timeout, Runnable shortfall) {
        this.writer = writer;
        this.redis = redis;
        this.replicas = replicas;
        this.timeoutMillis = timeout.toMillis();
        this.shortfall = shortfall;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        CompletableFuture<Integer> ack = new CompletableFuture<>();
        writer.write(imei, packet, receivedAtMillis).whenComplete((stored, error) -> {
            if (error != null) {
                ack.completeExceptionally(error);
                return;
            }
            synchronized (lock) {
                next.add(new Waiting(ack, stored));
            }
            maybeWait();
        });
        return ack;
    }

    /** Sends a WAIT for everything answered so far, unless one is already under way. */
    private void maybeWait() {
        List<Waiting> batch;
        synchronized (lock) {
            if (waiting || next.isEmpty()) {
                return;
            }
            waiting = true;
            batch = next;
            next = new ArrayList<>();
        }
        redis.waitForReplication(replicas, timeoutMillis).whenComplete((confirmed, error) -> {
            boolean enough = error == null && confirmed != null && confirmed >= replicas;
            if (!enough) {
                lastShortfallAt = System.currentTimeMillis();
                shortfall.run();
            }
            for (Waiting w : batch) {
                if (enough) {
                    w.ack().complete(w.stored());
                } else {
                    w.ack().completeExceptionally(error != null ? error
                            : new ReplicasBehind(confirmed == null ? 0 : confirmed, replicas));
                }
            }
            synchronized (lock) {
                waiting = false;
            }
            maybeWait();
        });
    }

    /** True when a WAIT fell short within {@code recent}: readiness reports it. */
    public boolean behindWithin(Duration recent) {
        return System.currentTimeMillis() - lastShortfallAt < recent.toMillis();
    }
}
