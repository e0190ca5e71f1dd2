package org.fleetpipe.teltonika.bridge.stream;

import org.fleetpipe.teltonika.payload.EntryBody;
import org.fleetpipe.teltonika.payload.EntryField;

/**
 * One telemetry stream entry as read from the consumer group, with the stream (partition) it came
 * from; {@code body} is empty for a trimmed entry. The IMEI, which the lanes and the model cache go
 * by, is decoded once.
 */
public final class StreamEntry {

    private final String stream;
    private final String id;
    private final EntryBody body;
    private final String imei;

    public StreamEntry(String stream, String id, EntryBody body) {
        this.stream = stream;
        this.id = id;
        this.body = body;
        String imei = body.text(EntryField.IMEI);
        this.imei = imei == null ? "" : imei;
    }

    public String stream() {
        return stream;
    }

    public String id() {
        return id;
    }

    public EntryBody body() {
        return body;
    }

    public String imei() {
        return imei;
    }

    /** What XACK and XCLAIM take: the id on its stream. */
    public EntryId ref() {
        return new EntryId(stream, id);
    }

    @Override
    public String toString() {
        return stream + " " + id;
    }
}
