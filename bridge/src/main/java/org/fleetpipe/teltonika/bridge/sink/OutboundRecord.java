package org.fleetpipe.teltonika.bridge.sink;

/**
 * One record on its way to a sink: its stream entry id, its device, its JSON payload, and when the
 * server received it ({@code rx}, ms; -1 when unknown), for the delivery delay.
 */
public record OutboundRecord(String entryId, String imei, byte[] json, long rxMillis) {

    /** A record whose reception time is not known. */
    public OutboundRecord(String entryId, String imei, byte[] json) {
        this(entryId, imei, json, -1);
    }
}
