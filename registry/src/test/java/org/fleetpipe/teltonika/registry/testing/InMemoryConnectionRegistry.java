package org.fleetpipe.teltonika.registry.testing;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;

/**
 * A {@link ConnectionRegistry} in a map, answering at once, for pipeline tests that are about the
 * pipeline and not about Redis (whose behaviour the registry's own tests prove against real Redis).
 */
public final class InMemoryConnectionRegistry implements ConnectionRegistry {

    private final Map<Imei, String> owners = new ConcurrentHashMap<>();
    private final String instanceId;

    public InMemoryConnectionRegistry(String instanceId) {
        this.instanceId = instanceId;
    }

    @Override
    public CompletionStage<String> claim(Imei imei, String remoteAddress, String session) {
        return CompletableFuture.completedFuture(owners.put(imei, instanceId));
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwner(Imei imei, String session) {
        return CompletableFuture.completedFuture(owners.remove(imei, instanceId));
    }

    @Override
    public CompletionStage<Boolean> reclaim(Imei imei, String oldId, String newId) {
        String current = owners.get(imei);
        boolean ok = current == null || current.equals(oldId);
        if (ok) {
            owners.put(imei, newId);
        }
        return CompletableFuture.completedFuture(ok);
    }

    @Override
    public CompletionStage<String> ownerOf(Imei imei) {
        return CompletableFuture.completedFuture(owners.get(imei));
    }

    /** The owner this fake holds for {@code imei}, or null. */
    public String owner(String imei) {
        return owners.get(new Imei(Objects.requireNonNull(imei)));
    }
}
