package org.fleetpipe.teltonika.server.command;

import java.time.Duration;

/**
 * Limits and timings of operator commands.
 *
 * @param replyTimeout       how long a sent command waits for the device's reply before it fails
 * @param defaultTtl         how long a command may wait in its queue when the request names no TTL
 * @param maxTtl             the longest TTL a request may ask for
 * @param maxQueuePerDevice  commands waiting for one device; more are refused with 429
 * @param maxCommandBytes    length of a command text
 * @param maxWait            the longest {@code wait_ms} a request may ask for
 * @param retention          how long a finished command stays readable
 * @param deadLetterMaxEntries entries kept in {@code dlq:commands}
 * @param sweepInterval      how often queues are checked for expired commands and missed wake-ups
 * @param maxAttempts        sends of a command when the request names no {@code max_attempts}
 * @param quietGap           after a reply timeout, how long the device gets no next command, so a
 *                           late reply is not taken for the next command's
 * @param modelFromGetver    a reply to {@code getver} stores the device's model ({@code Hw:}) in devices:models
 */
public record CommandSettings(Duration replyTimeout, Duration defaultTtl, Duration maxTtl, int maxQueuePerDevice,
                              int maxCommandBytes, Duration maxWait, Duration retention, int deadLetterMaxEntries,
                              Duration sweepInterval, int maxAttempts, Duration quietGap,
                              boolean modelFromGetver) {

    /** The most sends a request may ask for ({@code max_attempts}). */
    public static final int MAX_ATTEMPTS_LIMIT = 100;
}
