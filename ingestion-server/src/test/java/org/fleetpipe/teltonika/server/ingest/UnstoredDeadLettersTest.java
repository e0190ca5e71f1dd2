package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** DLQ_ENABLED=false: every refused frame is counted, none is stored, and the caller never waits. */
class UnstoredDeadLettersTest {

    @Test
    void record_countsEachFrameUnderDisabled_completesAtOnce_andLeavesTheBytesToTheCaller() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        UnstoredDeadLetters letters = new UnstoredDeadLetters(new IngestionMetrics(meters));
        ByteBuf bytes = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        try {
            for (int i = 0; i < 25; i++) {
                assertThat(letters.record(FrameOrigin.loggedIn(InetAddress.getLoopbackAddress(), TestImeis.WIKI),
                        "bad-crc", "test", bytes).toCompletableFuture()).isCompleted();
            }
            assertThat(bytes.refCnt()).isEqualTo(1);
            assertThat(bytes.readableBytes()).isEqualTo(3);
        } finally {
            bytes.release();
        }

        assertThat(meters.get("teltonika.dead.letters.dropped").tag("reason", "disabled").counter().count())
                .isEqualTo(25);
        assertThat(meters.get("teltonika.dead.letters.dropped").tag("reason", "rate").counter().count()).isZero();
    }
}
