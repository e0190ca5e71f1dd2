package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.StreamMessage;

/**
 * What a downstream team does with one telemetry entry: the part to replace. It must be
 * idempotent: an entry is delivered at least once (a consumer that dies before XACK gets its
 * entries reclaimed by another), and the server may store a record twice in rare cases
 * (TELEMETRY.md, "Duplicates"). An exception leaves the entry unacknowledged: it is tried again
 * once it was idle for --claim-idle.
 */
@FunctionalInterface
public interface EntryHandler {

    void handle(StreamMessage<String, String> entry) throws Exception;
}
