package org.fleetpipe.teltonika.registry;

import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;

/** Which instance holds which device's connection ({@code connections:registry}). All calls are asynchronous. */
public interface ConnectionRegistry {

    /** This instance now owns {@code imei}; completes with the previous owner, or null. */
    CompletionStage<String> claim(Imei imei, String remoteAddress);

    /** Removes the entry only if it still names this instance; completes with whether it did. */
    CompletionStage<Boolean> releaseIfOwner(Imei imei);

    /** Keeps {@code imei} under {@code newId} only where the entry is absent or still names {@code oldId}. */
    CompletionStage<Boolean> reclaim(Imei imei, String oldId, String newId);

    /** The owning instance id, or null. */
    CompletionStage<String> ownerOf(Imei imei);
}
