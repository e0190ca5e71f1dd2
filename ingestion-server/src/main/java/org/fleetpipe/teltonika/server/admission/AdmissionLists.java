package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * The allow- and deny-list of IMEIs: their sizes, and changes to them that apply at the next login
 * on every replica; denying a connected device, or taking it off the allow-list (the script tells
 * its instance), cuts it off wherever it is.
 */
public final class AdmissionLists {

    /** The two lists. */
    public enum ListName { ALLOWED, DENIED }

    /** The lists' sizes. */
    public record Sizes(long allowed, long denied) {
    }

    /** IMEIs per script call: each call stays well under a millisecond of Redis time. */
    private static final int BATCH = 500;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final AdmissionKeys admissionKeys;

    public AdmissionLists(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
        this.admissionKeys = new AdmissionKeys(keys);
    }

    public CompletionStage<Sizes> sizes() {
        return redis.scard(admissionKeys.allowedDevices()).thenCombine(redis.scard(admissionKeys.deniedDevices()),
                Sizes::new);
    }

    /** Adds ({@code add}) or removes {@code imeis} (valid IMEIs); completes with how many changed. */
    public CompletionStage<Long> change(ListName list, boolean add, List<String> imeis) {
        String key = list == ListName.ALLOWED ? admissionKeys.allowedDevices() : admissionKeys.deniedDevices();
        CompletableFuture<Long> total = CompletableFuture.completedFuture(0L);
        for (int from = 0; from < imeis.size(); from += BATCH) {
            List<String> batch = imeis.subList(from, Math.min(imeis.size(), from + BATCH));
            String[] args = new String[batch.size() + 5];
            args[0] = add ? "add" : "remove";
            args[1] = list == ListName.DENIED ? "1" : "0";
            args[2] = keys.instanceEventsPrefix();
            args[3] = InstanceEvent.DENY.verb();
            args[4] = InstanceEvent.REVOKE.verb();
            for (int i = 0; i < batch.size(); i++) {
                args[i + 5] = batch.get(i);
            }
            CompletionStage<Long> n = AdmissionScripts.CHANGE_LISTS.call(redis, ScriptOutputType.INTEGER,
                    new String[] {key, keys.registry()}, args);
            total = total.thenCombine(n, Long::sum);
        }
        return total;
    }
}
