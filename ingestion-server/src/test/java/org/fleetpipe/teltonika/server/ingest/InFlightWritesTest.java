package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** The in-flight count a clean stop waits on. */
class InFlightWritesTest {

    private static final Imei IMEI = new Imei(TestImeis.WIKI);
    private static final AvlPacket EMPTY = new AvlPacket(CodecId.CODEC_8, List.of());

    private final FakeTelemetryWriter delegate = new FakeTelemetryWriter();
    private final InFlightWrites writes = new InFlightWrites(delegate);

    @Test
    void inFlight_whenWritesOutstanding_thenCountedUntilEachCompletes() throws Exception {
        CompletionStage<Integer> first = writes.write(IMEI, EMPTY, 1L);
        writes.write(IMEI, EMPTY, 2L);
        assertThat(writes.inFlight()).isEqualTo(2);

        delegate.write(0).succeed();
        assertThat(writes.inFlight()).isEqualTo(1);
        assertThat(first.toCompletableFuture().get()).isZero();

        delegate.write(1).fail("redis down");
        assertThat(writes.inFlight()).as("a failed write is no longer in flight either").isZero();
    }

    @Test
    void awaitIdle_whenWriteNeverCompletes_thenFalseAfterTimeout() throws Exception {
        writes.write(IMEI, EMPTY, 1L);

        assertThat(writes.awaitIdle(Duration.ofMillis(50))).isFalse();
    }

    @Test
    void awaitIdle_whenWriteCompletesMeanwhile_thenTrue() throws Exception {
        writes.write(IMEI, EMPTY, 1L);
        CompletableFuture.runAsync(() -> delegate.write(0).succeed());

        assertThat(writes.awaitIdle(Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void write_whenDelegateThrows_thenNotLeftCountedAsInFlight() throws Exception {
        InFlightWrites throwing = new InFlightWrites((imei, packet, rx) -> {
            throw new IllegalStateException("connection closed");
        });

        assertThatThrownBy(() -> throwing.write(IMEI, EMPTY, 1L)).isInstanceOf(IllegalStateException.class);
        assertThat(throwing.inFlight()).isZero();
        assertThat(throwing.awaitIdle(Duration.ZERO)).isTrue();
    }
}
