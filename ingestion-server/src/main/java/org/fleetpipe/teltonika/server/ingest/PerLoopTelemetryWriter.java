package org.fleetpipe.teltonika.server.ingest;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;

/**
 * Hands each packet to the writer whose Redis connection lives on the calling event loop, so the
 * write, its reply and the ACK stay on one thread; from any other thread, to the writers in turn.
 */
public final class PerLoopTelemetryWriter implements TelemetryWriter {

    private final Map<EventExecutor, TelemetryWriter> byLoop;
    private final List<TelemetryWriter> all;
    private final AtomicInteger next = new AtomicInteger();

    public PerLoopTelemetryWriter(Map<EventExecutor, TelemetryWriter> byLoop) {
        if (byLoop.isEmpty()) {
            throw new IllegalArgumentException("no writers");
        }
        this.byLoop = Map.copyOf(byLoop);
        this.all = List.copyOf(byLoop.values());
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        TelemetryWriter writer = loop == null ? null : byLoop.get(loop);
        if (writer == null) {
            writer = all.get(Math.floorMod(next.getAndIncrement(), all.size()));
        }
        return writer.write(imei, packet, receivedAtMillis);
    }
}
