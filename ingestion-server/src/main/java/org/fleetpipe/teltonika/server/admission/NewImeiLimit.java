package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.server.limits.AddressRateLimit;
import org.fleetpipe.teltonika.server.limits.NetworkKey;

/**
 * Limits how many IMEIs new to the fleet one source network (/24 or /64, {@link NetworkKey}) may
 * bring in (open mode), since each one can leave keys in Redis: a burst sized for a cutover (a
 * fleet moving from another server behind one carrier NAT: every device new at once), refilled at a
 * rate per minute, so what made-up IMEIs can create per network and day is the burst plus a day of
 * the rate. By network, not address:
 * spoofed UDP from ten addresses of one network would otherwise bring in ten budgets. An IMEI is new unless this instance let it in before or
 * Redis holds state of it (a record stored within the device-info TTL or the dedup window). Redis
 * is asked only once a network has used up its budget, so known devices behind a busy address (a
 * carrier's NAT, or after a restart of this instance) still get in.
 */
public final class NewImeiLimit {

    /** No limit: allow-list mode (every IMEI was vetted), and tests about other things. */
    public static final NewImeiLimit OFF = new NewImeiLimit(0, imei -> CompletableFuture.completedFuture(true));

    /** Bound on the IMEIs remembered here, so a flood of made-up IMEIs cannot grow memory. */
    private static final int MAX_REMEMBERED = 200_000;
    private static final CompletionStage<Boolean> YES = CompletableFuture.completedFuture(true);

    private final AddressRateLimit perNetwork;
    private final Function<Imei, CompletionStage<Boolean>> knownInRedis;
    private final Set<String> letIn = ConcurrentHashMap.newKeySet();

    /** {@code perNetworkPerMinute} 0 = no limit; {@code knownInRedis} tells whether Redis holds state of an IMEI. */
    public NewImeiLimit(int perNetworkPerMinute, Function<Imei, CompletionStage<Boolean>> knownInRedis) {
        this(perNetworkPerMinute, perNetworkPerMinute, knownInRedis, System::nanoTime);
    }

    /**
     * As above, with up to {@code burstPerNetwork} new IMEIs at once from a network (at least the
     * rate); {@code nanoClock} for tests.
     */
    public NewImeiLimit(int perNetworkPerMinute, int burstPerNetwork,
                        Function<Imei, CompletionStage<Boolean>> knownInRedis, LongSupplier nanoClock) {
        this.perNetwork = new AddressRateLimit(burstPerNetwork, perNetworkPerMinute, Duration.ofMinutes(1), nanoClock);
        this.knownInRedis = knownInRedis;
    }

    /** Asks Redis for a device's stored state: device:info with a record time, or dedup sets. */
    public static Function<Imei, CompletionStage<Boolean>> knownIn(RedisClusterAsyncCommands<String, String> redis,
                                                                   IngestKeys keys) {
        return imei -> {
            String text = imei.value();
            CompletionStage<Boolean> info = redis.hexists(keys.deviceInfo(text), "last_record_at");
            CompletionStage<Long> dedup = redis.exists(keys.dedupRecent(text), keys.dedupPrevious(text));
            return info.thenCombine(dedup, (hasInfo, dedupKeys) -> hasInfo || dedupKeys > 0);
        };
    }

    /** Completes with true when {@code imei} may come in from {@code address}, false when its network is over the limit. */
    public CompletionStage<Boolean> admits(InetAddress address, Imei imei) {
        if (!perNetwork.enabled() || letIn.contains(imei.value())) {
            return YES;
        }
        if (perNetwork.tryAcquire(NetworkKey.of(address))) {
            remember(imei);
            return YES;
        }
        return knownInRedis.apply(imei).thenApply(known -> {
            if (known) {
                remember(imei);
            }
            return known;
        });
    }

    private void remember(Imei imei) {
        if (letIn.size() >= MAX_REMEMBERED) {
            // Forgetting costs only a budget token or a Redis lookup at the IMEI's next arrival.
            letIn.clear();
        }
        letIn.add(imei.value());
    }
}
