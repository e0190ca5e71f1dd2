package org.fleetpipe.teltonika.server.admission;

import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;

/** Decides whether a well-formed IMEI may log in. Asynchronous, like every Redis call on the login path. */
public interface Admission {

    /** Admits everyone: for tests about other things. */
    Admission OPEN = imei -> java.util.concurrent.CompletableFuture.completedFuture(null);

    /** Completes with null when admitted, or the refusal reason ({@code denied}, {@code not-allowed}). */
    CompletionStage<String> refusal(Imei imei);
}
