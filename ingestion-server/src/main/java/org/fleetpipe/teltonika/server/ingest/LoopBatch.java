package org.fleetpipe.teltonika.server.ingest;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.RejectedExecutionException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.redis.TransactionPipe;

/**
 * One event loop's packets of the current round, each put on its path as it comes: a packet that
 * may be a resend ({@link ResendGuard}) to append-packets.lua ({@link ScriptCalls}), the others to
 * the loop's MULTI block while its lane is connected ({@link MultiBlock}). Encoded when the packet
 * arrives, not when the round ends, so its bytes (the frame's, lent by the caller) are read only
 * during the write call. What is full goes at once, the rest when the loop's round ends. Touched
 * only by that loop's thread (or, off the loops, by one call).
 */
final class LoopBatch {

    private final WriterParts parts;
    private final PacketScan scan = new PacketScan();
    private final ScriptCalls scripts;
    private final MultiBlock block;
    private boolean roundEndQueued;
    private boolean laneOpened;

    /** {@code bytes}: room the calls' arguments start with. */
    LoopBatch(WriterParts parts, int bytes) {
        this.parts = parts;
        this.scripts = new ScriptCalls(parts, bytes);
        this.block = new MultiBlock(parts, bytes, () -> roundEndQueued);
    }

    /** Opens the loop's lane the first time it writes; {@code lanes} null: none. */
    void openLaneOnce(TelemetryLanes lanes, EventExecutor loop) {
        if (!laneOpened && lanes != null) {
            laneOpened = true;
            TransactionPipe pipe = lanes.open(loop);
            block.open(pipe, loop);
        }
    }

    /** Reads the packet twice (identities and decisions, then its encoding) and adds it to one of the two paths. */
    PendingPacket add(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection) {
        scan.scan(packet, parts.dedup);
        int count = scan.count();
        // On the packet's event loop: the connection's guard is touched only there. A packet that
        // cannot be a resend goes in the block, where the guard's count decides the recent set's rename.
        boolean direct = block.ready();
        int flags = 0;
        boolean renameRecent = false;
        if (parts.dedup && connection.mayBeResent(scan.ids(), scan.size())) {
            flags |= ScriptCalls.CHECK_DEDUP;
        } else if (parts.dedup && direct) {
            renameRecent = connection.addedToRecent(count, parts.dedupCap);
        }
        if (count > 0 && connection.infoRefreshDue(receivedAtMillis)) {
            flags |= ScriptCalls.REFRESH_INFO;
        }
        PendingPacket pending = new PendingPacket(count);
        if (direct && (flags & ScriptCalls.CHECK_DEDUP) == 0) {
            block.add(imei, packet, receivedAtMillis, scan, (flags & ScriptCalls.REFRESH_INFO) != 0, renameRecent,
                    pending, connection);
        } else {
            scripts.add(imei, packet, receivedAtMillis, scan, flags, pending, connection);
        }
        return pending;
    }

    /** Sends everything gathered at once: the script calls, then the block. */
    void send() {
        scripts.sendAll();
        block.sendAny();
    }

    /** On the loop: sends what reached the batch bounds, and queues the round's end for the rest. */
    void added(EventExecutor loop) {
        scripts.sendFull();
        block.sendIfFull();
        if ((scripts.holdsUnsent() || block.holdsUnsent()) && !roundEndQueued) {
            // Runs after the loop has handled every channel that was ready in this round.
            roundEndQueued = true;
            try {
                loop.execute(this::roundEnded);
            } catch (RejectedExecutionException shuttingDown) {
                roundEndQueued = false;
                send();
            }
        }
    }

    /** The loop's round is over: the script calls go now, the block when it is due. */
    private void roundEnded() {
        roundEndQueued = false;
        scripts.sendAll();
        block.sendIfDue();
    }
}
