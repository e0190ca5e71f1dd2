package org.fleetpipe.teltonika.server.testing;

import io.netty.util.concurrent.EventExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;

/**
 * Records every write and hands back a future the test completes by hand, so a test decides
 * exactly when "Redis" has stored a packet.
 */
public final class FakeTelemetryWriter implements TelemetryWriter {

    /** One call to {@link #write}. */
    public record Write(Imei imei, AvlPacket packet, long receivedAtMillis, CompletableFuture<Integer> result) {

        /** Completes as Redis would after storing every record. */
        public void succeed() {
            result.complete(packet.size());
        }

        public void fail(String why) {
            result.completeExceptionally(new IllegalStateException(why));
        }
    }

    private final List<Write> writes = new CopyOnWriteArrayList<>();

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor loop) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        // As objects now: the packet's bytes are lent for this call only.
        writes.add(new Write(imei, packet.toPacket(), receivedAtMillis, result));
        return result;
    }

    public List<Write> writes() {
        return List.copyOf(writes);
    }

    public Write write(int index) {
        return writes.get(index);
    }

    public int count() {
        return writes.size();
    }

    /** Forgets every write so far (a fuzz harness reuses one writer for millions of inputs). */
    public void clear() {
        writes.clear();
    }
}
