package org.fleetpipe.teltonika.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Token buckets, alone and per source address. */
class RateLimitTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private void advance(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void bucket_whenEmpty_thenRefusesUntilRefilledEvenly() {
        TokenBucket bucket = new TokenBucket(10, Duration.ofSeconds(1), now::get);

        assertThat(IntStream.range(0, 15).filter(i -> bucket.tryTake()).count()).as("the burst").isEqualTo(10);
        advance(99);
        assertThat(bucket.tryTake()).as("0.99 tokens").isFalse();
        advance(2);
        assertThat(bucket.tryTake()).as("one token per 100 ms").isTrue();
        advance(60_000);
        assertThat(IntStream.range(0, 15).filter(i -> bucket.tryTake()).count()).as("never more than the capacity")
                .isEqualTo(10);
    }

    @Test
    void perAddress_whenOneAddressUsedItsBudget_thenOthersStillHaveTheirs() throws Exception {
        AddressRateLimit limit = new AddressRateLimit(3, Duration.ofMinutes(1), now::get);
        InetAddress noisy = InetAddress.getByName("10.0.0.1");

        assertThat(IntStream.range(0, 5).filter(i -> limit.tryAcquire(noisy)).count()).isEqualTo(3);
        int others = 0;
        for (int i = 2; i < 102; i++) {
            others += limit.tryAcquire(InetAddress.getByName("10.0.1." + i)) ? 1 : 0;
        }
        assertThat(others).as("neighbouring addresses spread over the table").isEqualTo(100);
    }

    @Test
    void perAddress_whenOff_thenEverythingPasses() throws Exception {
        AddressRateLimit off = new AddressRateLimit(0, Duration.ofMinutes(1), now::get);

        assertThat(off.enabled()).isFalse();
        assertThat(IntStream.range(0, 1000).allMatch(i -> off.tryAcquire(InetAddress.getLoopbackAddress()))).isTrue();
    }
}
