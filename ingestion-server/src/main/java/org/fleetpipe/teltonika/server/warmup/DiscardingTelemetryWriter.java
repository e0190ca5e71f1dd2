package org.fleetpipe.teltonika.server.warmup;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.redis.RespArguments;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.TelemetryEntryMapper;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;

/**
 * The warm-up's writer: encodes every record into stream-entry arguments as the real writer does
 * (the per-record work the first real packets would otherwise pay in the interpreter), then drops
 * them and reports every record stored. Never talks to Redis. One thread only.
 */
final class DiscardingTelemetryWriter implements TelemetryWriter {

    private final TelemetryEntryMapper mapper = new TelemetryEntryMapper("warm-up");
    private final RespArguments args = new RespArguments(16 * 1024);
    private final AvlRecordCursor cursor = new AvlRecordCursor();
    private long records;

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis,
                                          ResendGuard connection, EventExecutor loop) {
        args.reset();
        mapper.appendPacketValues(imei, packet.codec(), receivedAtMillis, args);
        AvlRecordCursor r = cursor.reset(packet);
        while (r.next()) {
            mapper.appendRecordValues(packet.codec(), r, receivedAtMillis, args);
        }
        records += packet.size();
        return CompletableFuture.completedFuture(packet.size());
    }

    /** Records "stored" so far. */
    long records() {
        return records;
    }
}
