package org.fleetpipe.teltonika.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** The count of calls under way that a clean stop waits on. */
class PendingCallsTest {

    private static final Imei IMEI = new Imei(TestImeis.WIKI);
    private static final AvlPacket EMPTY = new AvlPacket(CodecId.CODEC_8, List.of());

    private final FakeTelemetryWriter delegate = new FakeTelemetryWriter();
    private final PendingCalls pending = new PendingCalls();
    private final TelemetryWriter writes = (imei, packet, rx, connection, loop) -> pending.track(() ->
            delegate.write(imei, packet, rx, connection, loop));

    @Test
    void inFlight_whenWritesOutstanding_thenCountedUntilEachCompletes() throws Exception {
        CompletionStage<Integer> first = writes.write(IMEI, EMPTY, 1L);
        writes.write(IMEI, EMPTY, 2L);
        assertThat(pending.pending()).isEqualTo(2);

        delegate.write(0).succeed();
        assertThat(pending.pending()).isEqualTo(1);
        assertThat(first.toCompletableFuture().get()).isZero();

        delegate.write(1).fail("redis down");
        assertThat(pending.pending()).as("a failed write is no longer in flight either").isZero();
    }

    @Test
    void awaitIdle_whenWriteNeverCompletes_thenFalseAfterTimeout() throws Exception {
        writes.write(IMEI, EMPTY, 1L);

        assertThat(pending.awaitIdle(Duration.ofMillis(50))).isFalse();
    }

    @Test
    void awaitIdle_whenWriteCompletesMeanwhile_thenTrue() throws Exception {
        writes.write(IMEI, EMPTY, 1L);
        CompletableFuture.runAsync(() -> delegate.write(0).succeed());

        assertThat(pending.awaitIdle(Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void write_whenDelegateThrows_thenNotLeftCountedAsInFlight() throws Exception {
        PendingCalls throwing = new PendingCalls();

        assertThatThrownBy(() -> throwing.track(() -> {
            throw new IllegalStateException("connection closed");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(throwing.pending()).isZero();
        assertThat(throwing.awaitIdle(Duration.ZERO)).isTrue();
    }
}
