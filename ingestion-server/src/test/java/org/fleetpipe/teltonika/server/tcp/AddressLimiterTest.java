package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AddressLimiterTest {

    private static final InetAddress ADDRESS = InetAddress.getLoopbackAddress();

    @Test
    void opened_pastTheCap_thenRefused_andAClosedOneMakesRoom() {
        AddressLimiter limiter = new AddressLimiter(2, 0);

        assertThat(limiter.opened(ADDRESS)).isNull();
        assertThat(limiter.opened(ADDRESS)).isNull();
        assertThat(limiter.opened(ADDRESS)).isEqualTo("more than 2 connections from 127.0.0.1");
        limiter.closed(ADDRESS);
        assertThat(limiter.opened(ADDRESS)).isNull();
    }

    @Test
    void opensAndClosesOnSeveralThreads_leaveTheCountExact() throws Exception {
        // Each thread opens and closes many times, so the address's count keeps passing through
        // zero (and being removed) while other threads open. (The race this guards against, a
        // close removing a counter another thread had just incremented, left the count too low
        // only while that connection lasted; it rarely shows on two cores, so this test checks
        // that counts stay exact rather than reproducing it.)
        int threads = 4;
        AddressLimiter limiter = new AddressLimiter(threads + 1, 0);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 200_000; i++) {
                        assertThat(limiter.opened(ADDRESS)).isNull();
                        limiter.closed(ADDRESS);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        // All closed again: exactly the cap fits, one more does not.
        for (int i = 0; i < threads + 1; i++) {
            assertThat(limiter.opened(ADDRESS)).isNull();
        }
        assertThat(limiter.opened(ADDRESS)).isNotNull();
    }
}
