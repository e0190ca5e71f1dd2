package org.fleetpipe.teltonika.server.warmup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;

/** The warm-up's registry: every claim succeeds and nothing is shared with the other replicas. */
final class UnsharedConnectionRegistry implements ConnectionRegistry {

    @Override
    public CompletionStage<String> claim(Imei imei, String remoteAddress, String session) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwner(Imei imei, String session) {
        return CompletableFuture.completedFuture(true);
    }

    @Override
    public CompletionStage<Boolean> reclaim(Imei imei, String oldId, String newId) {
        return CompletableFuture.completedFuture(true);
    }

    @Override
    public CompletionStage<String> ownerOf(Imei imei) {
        return CompletableFuture.completedFuture(null);
    }
}
