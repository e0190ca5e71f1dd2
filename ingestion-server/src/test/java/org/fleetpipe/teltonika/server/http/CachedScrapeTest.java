package org.fleetpipe.teltonika.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CachedScrapeTest {

    @Test
    void get_whenAskedAgainWithinTheAge_thenTheSameTextWithoutScrapingAgain() {
        AtomicLong now = new AtomicLong();
        AtomicInteger scrapes = new AtomicInteger();
        CachedScrape cached = new CachedScrape(() -> "scrape " + scrapes.incrementAndGet(), Duration.ofSeconds(1),
                now::get);

        assertThat(cached.get()).isEqualTo("scrape 1");
        now.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(cached.get()).isEqualTo("scrape 1");
        now.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(cached.get()).isEqualTo("scrape 2");
        assertThat(scrapes).hasValue(2);
    }
}
