package org.fleetpipe.teltonika.bridge.delivery;

import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.EntryField;
import org.fleetpipe.teltonika.payload.RecordPayload;

/** Turns stream entries into the payloads a sink sends, with IO names when the device's model is known. */
public final class RecordMaker {

    private final RecordPayload payload;
    private final DeviceModelCache models;

    public RecordMaker(RecordPayload payload, DeviceModelCache models) {
        this.payload = payload;
        this.models = models;
    }

    /**
     * Looks up the models of a batch's devices at once. When Redis does not answer, the batch goes
     * out with the models cached before (or none): names are an addition, the records are the point.
     */
    void prepare(List<StreamEntry> entries, BridgeMetrics metrics) {
        List<String> imeis = new ArrayList<>(entries.size());
        for (StreamEntry entry : entries) {
            imeis.add(entry.imei());
        }
        try {
            models.prefetch(imeis);
        } catch (RuntimeException e) {
            metrics.redisError();
        }
    }

    /** @throws org.fleetpipe.teltonika.payload.MalformedEntryException for an entry that is not a record */
    OutboundRecord make(StreamEntry entry) {
        return new OutboundRecord(entry.id(), entry.imei(),
                payload.toJson(entry.id(), entry.body(), models.cachedModelOf(entry.imei())),
                entry.body().number(EntryField.RX, -1));
    }
}
