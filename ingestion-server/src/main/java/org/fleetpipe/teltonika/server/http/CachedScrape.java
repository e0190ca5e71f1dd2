package org.fleetpipe.teltonika.server.http;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The Prometheus text, made at most once per {@code maxAge}: rendering every meter costs
 * milliseconds of CPU, and {@code /metrics} needs no token, so a client asking in a loop must not
 * make us render it each time. Scrapers ask every 15 s or more and never see the difference.
 */
public final class CachedScrape implements Supplier<String> {

    private final Supplier<String> scrape;
    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private String last;
    private long madeAt;

    public CachedScrape(Supplier<String> scrape, Duration maxAge) {
        this(scrape, maxAge, System::nanoTime);
    }

    /** With {@code nanoClock} instead of {@link System#nanoTime()}, for tests. */
    CachedScrape(Supplier<String> scrape, Duration maxAge, LongSupplier nanoClock) {
        this.scrape = scrape;
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoClock = nanoClock;
    }

    @Override
    public synchronized String get() {
        long now = nanoClock.getAsLong();
        if (last == null || now - madeAt >= maxAgeNanos) {
            last = scrape.get();
            madeAt = now;
        }
        return last;
    }
}
