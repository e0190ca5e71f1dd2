package org.fleetpipe.teltonika.bridge.stream;

import java.util.Map;

/** One telemetry stream entry as read from the consumer group; {@code fields} is empty for a trimmed entry. */
public record StreamEntry(String id, Map<String, String> fields) {

    public String imei() {
        String imei = fields.get("imei");
        return imei == null ? "" : imei;
    }
}
