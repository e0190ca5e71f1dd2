package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.server.limits.NetworkKey;
import org.junit.jupiter.api.Test;

/** The caps on connections that have not logged in yet, and the eviction of the oldest when the pool is full. */
class PreLoginCountsTest {

    private final List<String> evicted = new ArrayList<>();

    private PreLoginCounts.Place place(String address, String name) throws Exception {
        return new PreLoginCounts.Place(InetAddress.getByName(address), () -> evicted.add(name));
    }

    @Test
    void perNetwork_whenOverItsCap_thenRefusedWhileOtherNetworksEnter() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(100, 2);
        PreLoginCounts.Place first = place("10.0.0.1", "first");

        assertThat(counts.entered(first)).isNull();
        assertThat(counts.entered(place("10.0.0.2", "second"))).as("another address of the same /24").isNull();
        assertThat(counts.entered(place("10.0.0.3", "third"))).contains("more than 2 connections from 10.0.0.0/24")
                .contains("not logged in");
        assertThat(counts.entered(place("10.0.1.1", "other network"))).isNull();
        assertThat(counts.count()).isEqualTo(3);

        counts.left(first);
        assertThat(counts.entered(place("10.0.0.9", "later"))).as("a place freed").isNull();
        assertThat(evicted).isEmpty();
    }

    @Test
    void roomFor_countsConnectionsHandedOnAndNotEnteredYet_forASecondAtMost() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(100, 10);
        InetAddress network = NetworkKey.of(InetAddress.getByName("10.0.0.1"));
        long now = 5_000_000_000L;
        counts.handedOn(network, now);
        counts.handedOn(network, now);
        counts.handedOn(network, now);
        assertThat(counts.roomFor(network, now)).as("three on their way").isEqualTo(7);

        assertThat(counts.entered(place("10.0.0.7", "arrived"))).isNull();
        assertThat(counts.roomFor(network, now)).as("one arrived: one in, two on their way").isEqualTo(7);
        assertThat(counts.roomFor(network, now + 1_000_000_001L))
                .as("two that never arrived (closed before the gate) stop counting after a second").isEqualTo(9);
        assertThat(counts.roomFor(NetworkKey.of(InetAddress.getByName("10.0.1.1")), now)).isEqualTo(10);
    }

    @Test
    void total_whenFull_thenTheOldestIsEvictedForTheNewcomer() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(2, 0);
        PreLoginCounts.Place oldest = place("10.0.0.1", "oldest");
        PreLoginCounts.Place middle = place("10.0.1.1", "middle");
        assertThat(counts.entered(oldest)).isNull();
        assertThat(counts.entered(middle)).isNull();

        assertThat(counts.entered(place("10.0.2.1", "newcomer"))).as("let in").isNull();

        assertThat(evicted).containsExactly("oldest");
        assertThat(counts.count()).isEqualTo(2);
        counts.left(oldest);
        assertThat(counts.count()).as("the evicted one's own close counts nothing").isEqualTo(2);
        counts.left(middle);
        assertThat(counts.count()).isEqualTo(1);
    }

    @Test
    void evicted_thenItsNetworkPlaceIsFreedToo() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(1, 1);
        assertThat(counts.entered(place("10.0.0.1", "holder"))).isNull();

        assertThat(counts.entered(place("10.0.1.1", "device"))).isNull();
        assertThat(counts.entered(place("10.0.0.2", "holder again"))).as("its network's place was freed").isNull();

        assertThat(evicted).containsExactly("holder", "device");
    }

    @Test
    void manyThreads_enteringAndLeaving_thenTheCountsEndAtZero() throws Exception {
        PreLoginCounts counts = new PreLoginCounts(50, 0);
        AtomicInteger evictions = new AtomicInteger();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            pool.execute(() -> {
                try {
                    for (int i = 0; i < 2_000; i++) {
                        PreLoginCounts.Place p = new PreLoginCounts.Place(
                                InetAddress.getByAddress(new byte[] {10, (byte) thread, (byte) (i % 7), 1}),
                                evictions::incrementAndGet);
                        counts.entered(p);
                        counts.left(p);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                } finally {
                    done.countDown();
                }
            });
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        pool.shutdown();
        assertThat(counts.count()).isZero();
    }
}
