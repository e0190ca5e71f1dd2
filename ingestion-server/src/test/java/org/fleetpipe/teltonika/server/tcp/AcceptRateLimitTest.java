package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

class AcceptRateLimitTest {

    private final AtomicInteger pauses = new AtomicInteger();
    private final AtomicInteger deferred = new AtomicInteger();
    private final List<String> refused = new ArrayList<>();
    private final AtomicLong shareClock = new AtomicLong();
    /** Pre-login places a network has left; none bound by default. */
    private AcceptRateLimit.NetworkRoom preLoginRoom = AcceptRateLimit.NetworkRoom.UNBOUNDED;

    /** Pre-login places as PreLoginCounts keeps them: a cap per network, one place fewer per hand-on. */
    private static final class Places implements AcceptRateLimit.NetworkRoom {
        private final Map<InetAddress, Integer> taken = new HashMap<>();
        private final ToIntFunction<InetAddress> cap;

        Places(ToIntFunction<InetAddress> cap) {
            this.cap = cap;
        }

        @Override
        public int room(InetAddress network) {
            return Math.max(0, cap.applyAsInt(network) - taken.getOrDefault(network, 0));
        }

        @Override
        public void handedOn(InetAddress network) {
            taken.merge(network, 1, Integer::sum);
        }

        /** The connections handed on so far logged in: their places are free again. */
        void loggedIn() {
            taken.clear();
        }
    }
    private final AcceptRateLimit.Events events = new AcceptRateLimit.Events() {
        @Override
        public void deferred() {
            deferred.incrementAndGet();
        }

        @Override
        public void paused() {
            pauses.incrementAndGet();
        }

        @Override
        public void refused(SocketAddress remote, String reason) {
            refused.add(reason);
        }
    };

    /** A listener paced at {@code perSecond} in all and {@code perNetwork} a network, on clocks that move only when told. */
    private EmbeddedChannel listener(int perSecond, int perNetwork, int waitingPerNetwork, int waiting) {
        EmbeddedChannel listener = new EmbeddedChannel(new AcceptRateLimit(perSecond, perNetwork, waitingPerNetwork,
                waiting, preLoginRoom, events, shareClock::get));
        listener.freezeTime();
        return listener;
    }

    private void advance(EmbeddedChannel listener, long millis) {
        listener.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        shareClock.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        listener.runScheduledPendingTasks();
    }

    /** An accepted connection, not registered anywhere, from {@code address}. */
    private static EmbeddedChannel connectionFrom(String address) {
        InetSocketAddress remote = new InetSocketAddress(address, 40000);
        return new EmbeddedChannel() {
            @Override
            protected SocketAddress remoteAddress0() {
                return remote;
            }
        };
    }

    @Test
    void accepts_overATenthsShare_thenTheyWait_notClosed_andGoTheNextTenth() {
        EmbeddedChannel listener = listener(50, 0, 100, 100);
        List<EmbeddedChannel> herd = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            herd.add(connectionFrom("10.0.0.1"));
            listener.writeInbound(herd.get(i));
        }
        assertThat(listener.inboundMessages()).as("the tenth's 5").hasSize(5);
        assertThat(herd).allMatch(EmbeddedChannel::isOpen);
        assertThat(deferred).hasValue(3);
        assertThat(listener.config().isAutoRead()).as("still accepting").isTrue();

        advance(listener, 99);
        assertThat(listener.inboundMessages()).hasSize(5);
        advance(listener, 1);
        assertThat(listener.inboundMessages()).as("the next tenth").hasSize(8);
        assertThat(refused).isEmpty();
        listener.finishAndReleaseAll();
    }

    @Test
    void manyWaitingFromBusyNetworks_thenAQuietNetworksConnectionGoesInTheNextTenth() {
        EmbeddedChannel listener = listener(50, 1_000, 100, 1_000);
        for (int i = 0; i < 40; i++) {
            listener.writeInbound(connectionFrom("10.0." + (i % 2) + ".1"));
        }
        EmbeddedChannel quiet = connectionFrom("10.0.9.1");
        listener.writeInbound(quiet);
        assertThat(listener.inboundMessages()).hasSize(5).doesNotContain(quiet);

        advance(listener, 100);
        assertThat(listener.inboundMessages()).as("one of the next tenth's 5, in turn with the busy two")
                .hasSize(10).contains(quiet);
        listener.finishAndReleaseAll();
    }

    @Test
    void oneNetworkAlone_takesThePaceInAllBeyondItsShare_asFarAsItsPreLoginPlacesGo() {
        Places places = new Places(network -> 30);
        preLoginRoom = places;
        EmbeddedChannel listener = listener(1_000, 20, 1_000, 1_000);
        for (int i = 0; i < 200; i++) {
            listener.writeInbound(connectionFrom("10.0.0." + (1 + i % 250)));
        }
        assertThat(listener.inboundMessages()).as("a tenth of its share at once").hasSize(2);

        places.loggedIn();
        advance(listener, 100);
        assertThat(listener.inboundMessages()).as("its share's tenth, then the pace's room up to its 30 places")
                .hasSize(2 + 30);
        advance(listener, 100);
        assertThat(listener.inboundMessages()).as("no login meanwhile: no place, nothing more").hasSize(2 + 30);
        places.loggedIn();
        advance(listener, 100);
        assertThat(listener.inboundMessages()).hasSize(2 + 30 + 30);
        assertThat(refused).isEmpty();

        preLoginRoom = network -> Integer.MAX_VALUE;
        EmbeddedChannel unbounded = listener(1_000, 20, 1_000, 1_000);
        for (int i = 0; i < 200; i++) {
            unbounded.writeInbound(connectionFrom("10.0.0." + (1 + i % 250)));
        }
        advance(unbounded, 100);
        assertThat(unbounded.inboundMessages()).as("the whole tenth of the pace in all, not 2 a tenth")
                .hasSize(2 + 100);
        listener.finishAndReleaseAll();
        unbounded.finishAndReleaseAll();
    }

    @Test
    void aFloodingNetworkGetsOnlyTheRoomTheOthersLeave_theOthersTheirWholeNeed() {
        EmbeddedChannel listener = listener(1_000, 20, 1_000, 1_000);
        for (int i = 0; i < 500; i++) {
            listener.writeInbound(connectionFrom("10.0.0.1"));
        }
        List<EmbeddedChannel> others = new ArrayList<>();
        for (int net = 1; net <= 3; net++) {
            for (int i = 0; i < 10; i++) {
                EmbeddedChannel c = connectionFrom("10.0." + net + ".1");
                others.add(c);
                listener.writeInbound(c);
            }
        }
        listener.inboundMessages().clear();

        advance(listener, 100);
        assertThat(listener.inboundMessages()).as("the tenth's 100").hasSize(100)
                .as("every one of the 24 the three small networks had waiting, the flooder the other 76")
                .filteredOn(others::contains).hasSize(24);
        listener.finishAndReleaseAll();
    }

    @Test
    void connections_withoutAPreLoginPlaceOrOverTheirNetworksShare_wait_andPastItsWaitingCapAreClosed() {
        AtomicInteger noisyPlaces = new AtomicInteger(0);
        preLoginRoom = new Places(network -> network.getHostAddress().equals("10.0.0.0") ? noisyPlaces.get()
                : Integer.MAX_VALUE);
        EmbeddedChannel listener = listener(1_000, 2, 3, 100);
        List<EmbeddedChannel> noisy = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            noisy.add(connectionFrom("10.0.0." + (1 + i % 5)));
            listener.writeInbound(noisy.get(i));
        }
        EmbeddedChannel device = connectionFrom("10.0.1.1");
        listener.writeInbound(device);

        assertThat(listener.inboundMessages()).as("the other network's; the /24's pre-login places are all taken"
                + " (its logins are slow): handed on, its connections would be closed there").containsExactly(device);
        assertThat(noisy.stream().filter(EmbeddedChannel::isOpen).count()).as("3 waiting").isEqualTo(3);
        assertThat(refused).containsOnly("network-share").hasSize(7);
        for (int tenth = 0; tenth < 10; tenth++) {
            advance(listener, 100);
        }
        assertThat(listener.inboundMessages()).as("still no place: they wait").hasSize(1);

        noisyPlaces.set(100);
        advance(listener, 100);
        assertThat(listener.inboundMessages()).as("places again: the three waiting go, the share's one and two of"
                + " the room the pace in all has left").hasSize(4);
        assertThat(refused).hasSize(7);
        listener.finishAndReleaseAll();
    }

    @Test
    void waitingFull_thenANewcomerTakesTheBusiestNetworksNewestPlace_elseTheListenerPausesUntilFewerWait() {
        EmbeddedChannel listener = listener(10, 0, 100, 4);
        listener.writeInbound(connectionFrom("10.0.1.1"));
        for (int i = 0; i < 4; i++) {
            listener.writeInbound(connectionFrom("10.0.2.1"));
        }
        // Four wait, all of 10.0.2.0/24: three other networks' newcomers each take one of its places.
        for (int net = 5; net <= 7; net++) {
            listener.writeInbound(connectionFrom("10.0." + net + ".1"));
        }
        assertThat(refused).as("the busiest network's newest gave way").containsExactly("waiting-full",
                "waiting-full", "waiting-full");
        assertThat(listener.config().isAutoRead()).isTrue();

        // One each of four networks wait: no network has more than a newcomer's would.
        listener.writeInbound(connectionFrom("10.0.8.1"));
        assertThat(listener.config().isAutoRead()).as("no room to make: the kernel's queue holds the rest").isFalse();
        assertThat(pauses).hasValue(1);
        assertThat(refused).hasSize(3);
        // One that was accepted meanwhile, of a network holding its fair part of the bound already.
        listener.writeInbound(connectionFrom("10.0.7.2"));
        assertThat(refused).hasSize(4);

        advance(listener, 100);
        assertThat(listener.inboundMessages()).as("one a tenth").hasSize(2);
        assertThat(listener.config().isAutoRead()).as("still four waiting").isFalse();
        advance(listener, 100);
        assertThat(listener.config().isAutoRead()).as("fewer wait than the bound").isTrue();
        listener.finishAndReleaseAll();
    }

    @Test
    void listenerClosed_thenItsWaitingConnectionsAreClosed() {
        EmbeddedChannel listener = listener(10, 0, 100, 100);
        List<EmbeddedChannel> herd = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            herd.add(connectionFrom("10.0.0.1"));
            listener.writeInbound(herd.get(i));
        }
        listener.close();
        assertThat(herd.subList(1, 3)).noneMatch(EmbeddedChannel::isOpen);
        listener.finishAndReleaseAll();
    }

    @Test
    void rate_belowTenASecond_isRefused() {
        assertThatThrownBy(() -> new AcceptRateLimit(9, 0, 1, 1, AcceptRateLimit.NetworkRoom.UNBOUNDED, events)).isInstanceOf(IllegalArgumentException.class);
    }
}
