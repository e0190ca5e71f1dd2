package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AcceptRateLimitTest {

    private final AtomicInteger pauses = new AtomicInteger();

    @Test
    void accepts_whenATenthTookItsShare_thenTheListenerPausesUntilTheNextTenth() {
        EmbeddedChannel listener = frozenListener();

        for (int i = 0; i < 4; i++) {
            listener.writeInbound("connection " + i);
        }
        assertThat(listener.config().isAutoRead()).as("4 of the tenth's 5").isTrue();
        listener.writeInbound("connection 4");
        assertThat(listener.config().isAutoRead()).as("the tenth's fifth").isFalse();
        assertThat(pauses).hasValue(1);
        assertThat(listener.inboundMessages()).as("every accepted connection is handed on").hasSize(5);

        listener.advanceTimeBy(99, TimeUnit.MILLISECONDS);
        listener.runScheduledPendingTasks();
        assertThat(listener.config().isAutoRead()).isFalse();
        listener.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        listener.runScheduledPendingTasks();
        assertThat(listener.config().isAutoRead()).as("the next tenth").isTrue();

        listener.writeInbound("connection 5");
        assertThat(listener.config().isAutoRead()).as("a new tenth's first").isTrue();
        listener.finishAndReleaseAll();
    }

    @Test
    void accepts_spreadOverTime_neverPause() {
        EmbeddedChannel listener = frozenListener();
        for (int i = 0; i < 30; i++) {
            listener.writeInbound("connection " + i);
            listener.advanceTimeBy(25, TimeUnit.MILLISECONDS);
        }
        assertThat(pauses).hasValue(0);
        assertThat(listener.config().isAutoRead()).isTrue();
        listener.finishAndReleaseAll();
    }

    /** A listener capped at 50 a second (5 a tenth), on a clock that moves only when told. */
    private EmbeddedChannel frozenListener() {
        EmbeddedChannel listener = new EmbeddedChannel(new AcceptRateLimit(50, pauses::incrementAndGet));
        listener.freezeTime();
        return listener;
    }

    @Test
    void rate_belowTenASecond_isRefused() {
        assertThatThrownBy(() -> new AcceptRateLimit(9, () -> { })).isInstanceOf(IllegalArgumentException.class);
    }
}
