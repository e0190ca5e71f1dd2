package org.fleetpipe.teltonika.registry;

import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;

/** Which instance holds which device's connection ({@code connections:registry}). All calls are asynchronous. */
public interface ConnectionRegistry {

    /**
     * This instance now owns {@code imei} on behalf of the connection {@code session}; completes
     * with the previous owner, or null.
     */
    CompletionStage<String> claim(Imei imei, String remoteAddress, String session);

    /** As {@link #claim(Imei, String, String)} for a caller without connections (tests, tools). */
    default CompletionStage<String> claim(Imei imei, String remoteAddress) {
        return claim(imei, remoteAddress, "");
    }

    /**
     * Removes the entry only if it still names this instance and is still the claim of the
     * connection {@code session}; completes with whether it did.
     */
    CompletionStage<Boolean> releaseIfOwner(Imei imei, String session);

    /** As {@link #releaseIfOwner(Imei, String)} without the connection check. */
    default CompletionStage<Boolean> releaseIfOwner(Imei imei) {
        return releaseIfOwner(imei, "");
    }

    /** Keeps {@code imei} under {@code newId} only where the entry is absent or still names {@code oldId}. */
    CompletionStage<Boolean> reclaim(Imei imei, String oldId, String newId);

    /** The owning instance id, or null. */
    CompletionStage<String> ownerOf(Imei imei);
}
