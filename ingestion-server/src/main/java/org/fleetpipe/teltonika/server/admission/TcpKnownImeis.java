package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * Whether an IMEI logged in over TCP recently, as its {@code device:info:{imei}} shows: a TCP login
 * creates the hash (it lives DEVICE_INFO_TTL_BEFORE_RECORDS until the device stores a record, then
 * DEVICE_INFO_TTL from its last packet); UDP never creates it. A yes is remembered for
 * {@link #REMEMBERED} so a steady UDP device costs one lookup a minute, a no is asked again each
 * time (a spoofed flood of them is bounded by the UDP in-flight limit).
 */
public final class TcpKnownImeis {

    /** Far shorter than the hash's shortest life, so a remembered yes is still true in Redis. */
    static final Duration REMEMBERED = Duration.ofMinutes(1);
    /** Bound on the IMEIs remembered, so a flood of known IMEIs cannot grow memory. */
    private static final int MAX_REMEMBERED = 200_000;

    private final Function<Imei, CompletionStage<Boolean>> loggedIn;
    private final LongSupplier nanoClock;
    private final Map<String, Long> knownUntil = new ConcurrentHashMap<>();

    /** {@code loggedIn} tells whether Redis holds the IMEI's device info hash. */
    public TcpKnownImeis(Function<Imei, CompletionStage<Boolean>> loggedIn) {
        this(loggedIn, System::nanoTime);
    }

    /** With {@code nanoClock} instead of {@link System#nanoTime()}, for tests. */
    TcpKnownImeis(Function<Imei, CompletionStage<Boolean>> loggedIn, LongSupplier nanoClock) {
        this.loggedIn = loggedIn;
        this.nanoClock = nanoClock;
    }

    /** Asks Redis whether {@code device:info:{imei}} exists. */
    public static Function<Imei, CompletionStage<Boolean>> deviceInfoIn(RedisClusterAsyncCommands<String, String> redis,
                                                                        RedisKeys keys) {
        return imei -> redis.exists(keys.deviceInfo(imei.value())).thenApply(n -> n > 0);
    }

    /** Completes with true when {@code imei} logged in over TCP recently. */
    public CompletionStage<Boolean> knows(Imei imei) {
        Long until = knownUntil.get(imei.value());
        long now = nanoClock.getAsLong();
        if (until != null && until - now > 0) {
            return CompletableFuture.completedFuture(true);
        }
        return loggedIn.apply(imei).thenApply(known -> {
            if (known) {
                if (knownUntil.size() >= MAX_REMEMBERED) {
                    // Forgetting costs one lookup at the IMEI's next datagram.
                    knownUntil.clear();
                }
                knownUntil.put(imei.value(), now + REMEMBERED.toNanos());
            } else if (until != null) {
                knownUntil.remove(imei.value());
            }
            return known;
        });
    }
}
