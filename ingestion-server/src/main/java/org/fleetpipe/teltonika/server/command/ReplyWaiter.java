package org.fleetpipe.teltonika.server.command;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Lets an HTTP request with {@code wait_ms} wait for its command to finish. The instance that
 * finishes a command publishes {@code reply <id>} on the accepting instance's channel; a lost
 * message only makes the request answer with the status it finds when its wait runs out.
 */
public final class ReplyWaiter {

    private final Map<String, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

    /** Completes when the command finished, or normally after {@code max}, whichever comes first. */
    public CompletionStage<Void> await(String id, Duration max) {
        CompletableFuture<Void> done = waiting.computeIfAbsent(id, k -> new CompletableFuture<>());
        return done.completeOnTimeout(null, max.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((v, e) -> waiting.remove(id, done));
    }

    /** The command {@code id} finished (replied or failed). */
    public void finished(String id) {
        CompletableFuture<Void> done = waiting.get(id);
        if (done != null) {
            done.complete(null);
        }
    }
}
