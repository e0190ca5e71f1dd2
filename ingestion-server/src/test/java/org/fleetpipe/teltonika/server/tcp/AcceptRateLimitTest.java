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

    /** An accepted connection, not registered anywhere, from {@code address}. */
    private static EmbeddedChannel connectionFrom(String address) {
        java.net.InetSocketAddress remote = new java.net.InetSocketAddress(address, 40000);
        return new EmbeddedChannel() {
            @Override
            protected java.net.SocketAddress remoteAddress0() {
                return remote;
            }
        };
    }

    @Test
    void connections_overTheirNetworksShare_thenClosedAtOnce_notCountedAgainstThePace_othersHandedOn() {
        java.util.List<java.net.SocketAddress> refused = new java.util.ArrayList<>();
        EmbeddedChannel listener = new EmbeddedChannel(new AcceptRateLimit(1_000, 3, pauses::incrementAndGet,
                refused::add));
        listener.freezeTime();
        java.util.List<EmbeddedChannel> noisy = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            EmbeddedChannel c = connectionFrom("10.0.0." + (1 + i % 5));
            noisy.add(c);
            listener.writeInbound(c);
        }
        EmbeddedChannel device = connectionFrom("10.0.1.1");
        listener.writeInbound(device);

        assertThat(noisy.stream().filter(EmbeddedChannel::isOpen).count()).as("the /24's share of 3").isEqualTo(3);
        assertThat(refused).hasSize(7);
        assertThat(device.isOpen()).as("another network has its own share").isTrue();
        assertThat(listener.inboundMessages()).hasSize(4).contains(device);
        assertThat(pauses).as("the 7 refused did not count against the 100 a tenth").hasValue(0);
        listener.finishAndReleaseAll();
    }

    @Test
    void networkShareAlone_withoutAPace_thenOnlyTheShareApplies() {
        EmbeddedChannel listener = new EmbeddedChannel(new AcceptRateLimit(0, 2, pauses::incrementAndGet,
                remote -> { }));
        for (int i = 0; i < 3; i++) {
            listener.writeInbound(connectionFrom("10.0.0.1"));
        }
        assertThat(listener.inboundMessages()).hasSize(2);
        assertThat(listener.config().isAutoRead()).isTrue();
        listener.finishAndReleaseAll();
    }
}
