package org.fleetpipe.teltonika.bridge.stream;

import org.fleetpipe.teltonika.payload.EntryBody;
import org.fleetpipe.teltonika.payload.EntryField;

/**
 * One telemetry stream entry as read from the consumer group, with the stream (partition) it came
 * from; {@code body} is empty for a trimmed entry. The IMEI, which the lanes and the model cache go
 * by, is decoded once.
 */
public final class StreamEntry {

    /** Made once: the entry is held, released and acknowledged by it. */
    private final EntryId ref;
    private final EntryBody body;
    private final String imei;

    public StreamEntry(String stream, String id, EntryBody body) {
        this.ref = new EntryId(stream, id);
        this.body = body;
        String imei = body.text(EntryField.IMEI);
        this.imei = imei == null ? "" : imei;
    }

    public String stream() {
        return ref.stream();
    }

    public String id() {
        return ref.id();
    }

    public EntryBody body() {
        return body;
    }

    public String imei() {
        return imei;
    }

    /** What XACK and XCLAIM take: the id on its stream. */
    public EntryId ref() {
        return ref;
    }

    @Override
    public String toString() {
        return ref.stream() + " " + ref.id();
    }
}
