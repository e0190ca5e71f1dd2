package org.fleetpipe.teltonika.bridge.stream;

import java.util.Map;
import org.fleetpipe.teltonika.payload.EntryField;

/**
 * One telemetry stream entry as read from the consumer group, with the stream (partition) it came
 * from; {@code fields} is empty for a trimmed entry.
 */
public record StreamEntry(String stream, String id, Map<String, String> fields) {

    public String imei() {
        String imei = fields.get(EntryField.IMEI.key());
        return imei == null ? "" : imei;
    }

    /** What XACK and XCLAIM take: the id on its stream. */
    public EntryId ref() {
        return new EntryId(stream, id);
    }
}
