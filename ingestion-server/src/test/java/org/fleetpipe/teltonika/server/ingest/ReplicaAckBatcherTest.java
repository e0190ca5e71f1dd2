package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.junit.jupiter.api.Test;

/**
 * The batching and the connection-epoch rule. Whether replicas hold the data is Redis's business
 * ({@code ReplicaAckIT}, {@code SentinelFailoverIT}); here WAIT's answer is given by hand.
 */
class ReplicaAckBatcherTest {

    private final AtomicLong epoch = new AtomicLong(1);
    private final AtomicInteger shortfalls = new AtomicInteger();
    private CompletableFuture<Long> pendingWait;
    private int waits;

    private final ReplicaAckBatcher batcher = new ReplicaAckBatcher((imei, packet, at, connection, loop) -> CompletableFuture
            .completedFuture(3), this::await, epoch::get, 1, Duration.ofSeconds(1), shortfalls::incrementAndGet);

    private CompletionStage<Long> await(int replicas, long timeoutMillis) {
        waits++;
        pendingWait = new CompletableFuture<>();
        return pendingWait;
    }

    @Test
    void write_whenWaitConfirms_thenAcknowledged() {
        CompletableFuture<Integer> ack = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        assertThat(ack).isNotDone();
        pendingWait.complete(1L);
        assertThat(ack).isCompletedWithValue(3);
    }

    @Test
    void writes_whileAWaitIsUnderWay_thenCoveredByOneMoreWait() {
        CompletableFuture<Integer> first = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        CompletableFuture<Integer> second = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        CompletableFuture<Integer> third = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        assertThat(waits).isEqualTo(1);
        pendingWait.complete(1L);
        assertThat(first).isCompleted();
        assertThat(waits).isEqualTo(2);
        pendingWait.complete(1L);
        assertThat(second).isCompletedWithValue(3);
        assertThat(third).isCompletedWithValue(3);
    }

    @Test
    void write_whenTooFewReplicasConfirm_thenNotAcknowledged() {
        CompletableFuture<Integer> ack = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        pendingWait.complete(0L);
        assertThat(ack).isCompletedExceptionally();
        assertThat(shortfalls).hasValue(1);
        assertThat(batcher.behindWithin(Duration.ofMinutes(1))).isTrue();
    }

    @Test
    void write_whenTheConnectionReconnectedBeforeTheWaitAnswered_thenNotAcknowledged() {
        // The write went to the old primary; the WAIT, replayed after the reconnect, ran on the new
        // one and confirms only its own connection's writes.
        CompletableFuture<Integer> ack = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        epoch.incrementAndGet();
        pendingWait.complete(1L);
        assertThat(ack).isCompletedExceptionally();
        CompletableFuture<Integer> after = batcher.write(null, (AvlPacketView) null, 0).toCompletableFuture();
        pendingWait.complete(1L);
        assertThat(after).isCompletedWithValue(3);
    }
}
