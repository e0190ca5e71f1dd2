package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.StreamMessage;
import java.io.PrintStream;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.EntryField;
import org.fleetpipe.teltonika.payload.RecordPayload;

/**
 * Prints each entry as one line of the bridge's JSON object (TELEMETRY.md, "The bridge payload"):
 * numbers as numbers, {@code io} as an object, the entry's {@code id}, and with the device's model
 * (from the models hash) its {@code io_named} and {@code units}. {@code valid} is as the stream has
 * it: a schema 1 entry has none (the progress line still counts it by {@link EntryValidity}). An
 * entry that is no record of a known schema throws, so it goes the way of every handler failure:
 * tried again, then dead-lettered.
 */
public final class JsonLinesHandler implements EntryHandler {

    private final PrintStream out;
    private final RecordPayload payload;
    private final DeviceModelCache models;

    public JsonLinesHandler(PrintStream out, RecordPayload payload, DeviceModelCache models) {
        this.out = out;
        this.payload = payload;
        this.models = models;
    }

    @Override
    public void handle(StreamMessage<String, String> entry) {
        String imei = entry.getBody().get(EntryField.IMEI.key());
        byte[] json = payload.toJson(entry.getId(), entry.getBody(), imei == null ? null : models.modelOf(imei));
        synchronized (out) {
            out.write(json, 0, json.length);
            out.write('\n');
            out.flush();
        }
    }
}
