package org.fleetpipe.teltonika.server.ingest;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletionStage;

/** Where refused device bytes go, so an operator can see what a device sent and why it was refused. */
public interface FrameDeadLetters {

    /**
     * Records {@code bytes} (not released; read without moving its indices, before this returns).
     *
     * @return completes once the dead letter is stored, dropped or failed (never exceptionally), so a
     *         caller can count it as work in flight
     */
    CompletionStage<Void> record(FrameOrigin origin, String reason, String detail, ByteBuf bytes);
}
