package org.fleetpipe.teltonika.consumer;

/**
 * What a consumer did since it started.
 *
 * @param read    entries handed to the handler (new ones, its own left from before, reclaimed ones)
 * @param acked   entries acknowledged (XACK) after the handler accepted them
 * @param claimed entries taken over from consumers that left them unacknowledged (XAUTOCLAIM)
 * @param failed  entries the handler threw on: left unacknowledged, to be tried again
 * @param gone    entries trimmed before this consumer got them (possible only when the server's
 *                retention is 'delivered'); acknowledged so they leave the pending list
 */
public record ConsumerTotals(long read, long acked, long claimed, long failed, long gone, String lastId) {
}
