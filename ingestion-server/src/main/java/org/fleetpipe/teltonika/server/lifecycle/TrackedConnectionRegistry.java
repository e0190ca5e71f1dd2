package org.fleetpipe.teltonika.server.lifecycle;

import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;

/** A registry whose calls a clean stop can wait for: the last releases must reach Redis before it closes. */
public final class TrackedConnectionRegistry implements ConnectionRegistry {

    private final ConnectionRegistry delegate;
    private final PendingCalls pending;

    public TrackedConnectionRegistry(ConnectionRegistry delegate, PendingCalls pending) {
        this.delegate = delegate;
        this.pending = pending;
    }

    @Override
    public CompletionStage<String> claim(Imei imei, String remoteAddress, String session) {
        return pending.track(() -> delegate.claim(imei, remoteAddress, session));
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwner(Imei imei, String session) {
        return pending.track(() -> delegate.releaseIfOwner(imei, session));
    }

    @Override
    public CompletionStage<Boolean> reclaim(Imei imei, String oldId, String newId) {
        return pending.track(() -> delegate.reclaim(imei, oldId, newId));
    }

    @Override
    public CompletionStage<String> ownerOf(Imei imei) {
        return pending.track(() -> delegate.ownerOf(imei));
    }
}
