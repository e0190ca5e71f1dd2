package org.fleetpipe.teltonika.bridge.sink;

/** One record on its way to a sink: its stream entry id, its device and its JSON payload. */
public record OutboundRecord(String entryId, String imei, byte[] json) {
}
