package org.fleetpipe.teltonika.server.ingest;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.server.limits.AddressRateLimit;
import org.fleetpipe.teltonika.server.limits.TokenBucket;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/**
 * Stores a sample of the refused frames: at most so many per second, and per minute per source
 * address, so spoofed garbage cannot make each datagram a Redis call nor wipe dlq:frames of real
 * evidence. Logged-in devices and unauthenticated bytes (UDP, bytes before login) have a
 * per-second budget each: a flood from spoofed addresses, which the per-address limit cannot
 * catch, uses up only its own. The others are counted (every refused frame is, in
 * frames_rejected) and dropped.
 */
public final class RateLimitedDeadLetters implements FrameDeadLetters {

    private static final CompletionStage<Void> DROPPED = CompletableFuture.completedFuture(null);

    private final FrameDeadLetters delegate;
    private final TokenBucket perSecondLoggedIn;
    private final TokenBucket perSecondUnauthenticated;
    private final AddressRateLimit perAddress;
    private final IngestionMetrics metrics;

    public RateLimitedDeadLetters(FrameDeadLetters delegate, int perSecond, int perAddressPerMinute,
                                  IngestionMetrics metrics) {
        this.delegate = delegate;
        this.perSecondLoggedIn = new TokenBucket(perSecond, Duration.ofSeconds(1));
        this.perSecondUnauthenticated = new TokenBucket(perSecond, Duration.ofSeconds(1));
        this.perAddress = new AddressRateLimit(perAddressPerMinute, Duration.ofMinutes(1));
        this.metrics = metrics;
    }

    @Override
    public CompletionStage<Void> record(FrameOrigin origin, String reason, String detail, ByteBuf bytes) {
        // The address first: one noisy source must not use up the budget of all the others.
        if (!perAddress.tryAcquire(origin.address())) {
            metrics.deadLetterDropped("address-rate");
            return DROPPED;
        }
        if (!(origin.loggedIn() ? perSecondLoggedIn : perSecondUnauthenticated).tryTake()) {
            metrics.deadLetterDropped("rate");
            return DROPPED;
        }
        return delegate.record(origin, reason, detail, bytes);
    }
}
