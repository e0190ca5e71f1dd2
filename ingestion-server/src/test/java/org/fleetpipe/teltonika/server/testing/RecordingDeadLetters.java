package org.fleetpipe.teltonika.server.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.FrameOrigin;

/**
 * Keeps each dead letter with its bytes copied out as hex, since the buffer is not ours to keep.
 * Stores complete at once, unless {@link #holdStores()} was called: then each waits for {@link #finishStores()}.
 */
public final class RecordingDeadLetters implements FrameDeadLetters {

    /** One recorded frame; {@code hex} is uppercase like {@code Hex.of}. */
    public record Letter(FrameOrigin origin, String imei, String reason, String detail, String hex) {
    }

    private final List<Letter> letters = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Void>> held = new CopyOnWriteArrayList<>();
    private volatile boolean hold;

    @Override
    public CompletionStage<Void> record(FrameOrigin origin, String reason, String detail, ByteBuf bytes) {
        letters.add(new Letter(origin, origin.imei(), reason, detail, ByteBufUtil.hexDump(bytes).toUpperCase()));
        if (!hold) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> store = new CompletableFuture<>();
        held.add(store);
        return store;
    }

    /** From now on each store stays under way until {@link #finishStores()}. */
    public void holdStores() {
        hold = true;
    }

    /** Completes every store held so far. */
    public void finishStores() {
        held.forEach(f -> f.complete(null));
        held.clear();
    }

    public List<Letter> letters() {
        return List.copyOf(letters);
    }

    /** Forgets every letter so far. */
    public void clear() {
        letters.clear();
    }
}
