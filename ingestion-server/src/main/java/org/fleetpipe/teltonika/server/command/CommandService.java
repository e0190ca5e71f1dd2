package org.fleetpipe.teltonika.server.command;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * What the operator API does with commands: submit one to a device's queue, read one back, and
 * wait for one to finish (its reply may come to any replica: {@link ReplyWaiter}).
 */
public final class CommandService {

    private final CommandStore store;
    private final ReplyWaiter waiter;

    public CommandService(CommandStore store, ReplyWaiter waiter) {
        this.store = store;
        this.waiter = waiter;
    }

    /**
     * Stores and queues a new command, kept for {@code ttl}; completes with its id, or empty when the
     * device's queue is full.
     *
     * @param template the {@link CommandTemplates template} that built {@code text}, or null for a typed text
     */
    public CompletionStage<Optional<String>> submit(Imei imei, int codec, String text, String template,
                                                    Duration ttl, int maxAttempts) {
        String id = UUID.randomUUID().toString();
        return store.enqueue(id, imei, codec, text, template == null ? "" : template,
                        System.currentTimeMillis() + ttl.toMillis(), maxAttempts)
                .thenApply(length -> length < 0 ? Optional.empty() : Optional.of(id));
    }

    /** The command's fields, or an empty map when there is no such command. */
    public CompletionStage<Map<String, String>> find(String id) {
        return store.get(id);
    }

    /** The command's fields once it finished or {@code wait} ran out; at once when {@code wait} is zero. */
    public CompletionStage<Map<String, String>> await(String id, Duration wait) {
        if (wait.isZero()) {
            return store.get(id);
        }
        return waiter.await(id, wait).thenCompose(v -> store.get(id));
    }
}
