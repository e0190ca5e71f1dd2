package org.fleetpipe.teltonika.server.ingest;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;

/**
 * {@code ACK_REPLICAS}: a packet is acknowledged only once {@code WAIT} confirms that many replicas
 * hold its entries, so an acknowledged record survives the loss of the primary. WAITs are batched:
 * one WAIT covers every packet whose write was answered before it was sent (Redis confirms
 * replication by offset, and all those writes went first on the same connection), so it costs one
 * round trip per batch, not per packet. The writer must use a connection of its own, because a
 * WAIT blocks the connection it is sent on until it returns. A write answered before the
 * connection last (re)connected is never acknowledged: the WAIT that follows runs on another
 * physical connection, maybe to another primary, and does not cover it.
 */
public final class ReplicaAckBatcher implements TelemetryWriter {

    /** The replicas did not confirm in time: the packet must not be acknowledged. */
    public static final class ReplicasBehind extends RuntimeException {
        ReplicasBehind(long confirmed, int wanted) {
            super(confirmed + " of " + wanted + " replicas confirmed the write in time", null, false, false);
        }
    }

    /** Redis's WAIT on the writer's connection: how many replicas confirmed, within the timeout. */
    @FunctionalInterface
    public interface ReplicaWait {
        CompletionStage<Long> await(int replicas, long timeoutMillis);
    }

    /** The connection was re-established between the write and its WAIT: unconfirmed, not acknowledged. */
    public static final class ConnectionChanged extends RuntimeException {
        ConnectionChanged() {
            super("the Redis connection changed between the write and its WAIT", null, false, false);
        }
    }

    private record Waiting(CompletableFuture<Integer> ack, int stored, long epoch) {
    }

    private final TelemetryWriter writer;
    private final ReplicaWait redis;
    private final LongSupplier epoch;
    private final int replicas;
    private final long timeoutMillis;
    private final Runnable shortfall;
    private final Object lock = new Object();
    private List<Waiting> next = new ArrayList<>();
    private boolean waiting;
    private volatile long lastShortfallAt;

    /**
     * {@code epoch} changes whenever the writer's connection (re)connects; {@code shortfall} is told
     * each time a WAIT confirms fewer replicas than wanted (for a metric).
     */
    public ReplicaAckBatcher(TelemetryWriter writer, ReplicaWait redis, LongSupplier epoch, int replicas,
                             Duration timeout, Runnable shortfall) {
        this.writer = writer;
        this.redis = redis;
        this.epoch = epoch;
        this.replicas = replicas;
        this.timeoutMillis = timeout.toMillis();
        this.shortfall = shortfall;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor loop) {
        CompletableFuture<Integer> ack = new CompletableFuture<>();
        writer.write(imei, packet, receivedAtMillis, connection, loop).whenComplete((stored, error) -> {
            if (error != null) {
                ack.completeExceptionally(error);
                return;
            }
            long answeredIn = epoch.getAsLong();
            synchronized (lock) {
                next.add(new Waiting(ack, stored, answeredIn));
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
        redis.await(replicas, timeoutMillis).whenComplete((confirmed, error) -> {
            boolean enough = error == null && confirmed != null && confirmed >= replicas;
            long answeredIn = epoch.getAsLong();
            if (!enough) {
                lastShortfallAt = System.currentTimeMillis();
                shortfall.run();
            }
            for (Waiting w : batch) {
                if (enough && w.epoch() == answeredIn) {
                    w.ack().complete(w.stored());
                } else if (enough) {
                    w.ack().completeExceptionally(new ConnectionChanged());
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
