package org.fleetpipe.teltonika.consumer;

/**
 * What a consumer did since it started.
 *
 * @param read    entries handed to the handler (new ones, its own left from before, reclaimed ones)
 * @param acked   entries acknowledged (XACK) after the handler accepted them
 * @param claimed entries taken over from consumers that left them unacknowledged (XAUTOCLAIM)
 * @param failed  times the handler threw on an entry: left unacknowledged, to be tried again, unless
 *                the entry was delivered {@code --max-deliveries} times
 * @param deadLettered entries the handler failed on {@code --max-deliveries} times: moved to the
 *                dead-letter stream and acknowledged
 * @param gone    entries trimmed before this consumer got them (possible only when the server's
 *                retention is 'delivered'); acknowledged so they leave the pending list
 * @param invalid entries read with {@code valid} = 0 (no GPS fix or an implausible clock; for a
 *                schema 1 entry, by the same rule: {@link EntryValidity})
 */
public record ConsumerTotals(long read, long acked, long claimed, long failed, long deadLettered, long gone,
                             long invalid, String lastId) {
}
