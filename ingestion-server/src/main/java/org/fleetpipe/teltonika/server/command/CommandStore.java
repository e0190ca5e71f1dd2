package org.fleetpipe.teltonika.server.command;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;

/** Where commands live: their hashes, the per-device queues, in-flight places and dead letters. */
public interface CommandStore {

    /**
     * Stores and queues a new command that may be sent {@code maxAttempts} times; completes with
     * the queue length, or -1 when the queue is full.
     *
     * @param template the template that built {@code text} (kept in the hash's {@code template}), or "" for none
     */
    CompletionStage<Long> enqueue(String id, Imei imei, int codec, String text, String template, long expiresAt,
                                  int maxAttempts);

    /** Moves the device's next command to this instance's in-flight place; empty when there is none to send, or this instance was told to stop. */
    CompletionStage<Optional<TakenCommand>> take(Imei imei);

    /**
     * Ends this send of a command: replied with its text, or failed with a reason (and the device's
     * text, if any); false when that send is no longer in flight.
     */
    CompletionStage<Boolean> finish(TakenCommand command, Imei imei, boolean replied, String reason, String text);

    /**
     * Hands this send of the device's command back to the head of its queue, unless a newer send
     * replaced it; fails it ({@code attempts}) instead when it was sent as often as it may be.
     */
    CompletionStage<CommandHandBack.Outcome> requeue(Imei imei, TakenCommand command);

    /** A command's fields, or an empty map. */
    CompletionStage<Map<String, String>> get(String id);

    /** Keeps a message the device sent on its own (Codec 13, or a reply nobody waited for). */
    CompletionStage<String> deviceMessage(Imei imei, String codec, long deviceTimestampSeconds, String text);
}
