package org.fleetpipe.teltonika.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** IMEIs that logged in over TCP: asked of Redis, a yes remembered for a minute. */
class TcpKnownImeisTest {

    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final Set<String> inRedis = new java.util.concurrent.CopyOnWriteArraySet<>(Set.of(TestImeis.WIKI));
    private final AtomicLong now = new AtomicLong(0);
    private final TcpKnownImeis known = new TcpKnownImeis(imei -> {
        asked.add(imei.value());
        return CompletableFuture.completedFuture(inRedis.contains(imei.value()));
    }, now::get);

    private boolean knows(String imei) {
        return known.knows(new Imei(imei)).toCompletableFuture().join();
    }

    @Test
    void known_thenRememberedForAMinute_thenAskedAgain() {
        assertThat(knows(TestImeis.WIKI)).isTrue();
        assertThat(knows(TestImeis.WIKI)).isTrue();
        assertThat(asked).hasSize(1);

        inRedis.clear();
        now.addAndGet(TcpKnownImeis.REMEMBERED.toNanos() + 1);
        assertThat(knows(TestImeis.WIKI)).as("the device info expired meanwhile").isFalse();
        assertThat(asked).hasSize(2);
    }

    @Test
    void unknown_thenAskedEachTime() {
        assertThat(knows(TestImeis.OTHER)).isFalse();
        assertThat(knows(TestImeis.OTHER)).isFalse();
        assertThat(asked).hasSize(2);
    }
}
