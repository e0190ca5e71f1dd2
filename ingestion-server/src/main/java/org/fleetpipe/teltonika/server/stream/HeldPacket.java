package org.fleetpipe.teltonika.server.stream;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.server.ingest.HeldWrite;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.StreamFull;

/** A held packet; the future its writer waits on. Leaves the hold exactly once: written, failed or abandoned. */
final class HeldPacket extends CompletableFuture<Integer> implements HeldWrite {

    final Imei imei;
    final int partition;
    /** A copy: the caller's bytes were lent for its write call only. */
    final AvlPacketView packet;
    final long receivedAtMillis;
    final ResendGuard connection;
    /** The event loop the packet came from, so that its write joins that loop's batch when released. */
    final EventExecutor loop;
    final long heldAtNanos;
    private final HeldPackets books;
    private final AtomicBoolean out = new AtomicBoolean();

    HeldPacket(HeldPackets books, Imei imei, int partition, AvlPacketView packet, long receivedAtMillis,
               ResendGuard connection, EventExecutor loop, long heldAtNanos) {
        this.books = books;
        this.imei = imei;
        this.partition = partition;
        this.packet = packet;
        this.receivedAtMillis = receivedAtMillis;
        this.connection = connection;
        this.loop = loop;
        this.heldAtNanos = heldAtNanos;
    }

    /** Takes it out of the hold's counts; false when something else already did. */
    boolean take() {
        if (!out.compareAndSet(false, true)) {
            return false;
        }
        books.left(packet);
        return true;
    }

    boolean taken() {
        return out.get();
    }

    /** Takes it out and fails it; false when something else took it first. */
    boolean fail(String why) {
        if (!take()) {
            return false;
        }
        completeExceptionally(new StreamFull(why));
        return true;
    }

    @Override
    public void abandon() {
        fail("the device's connection closed while its packet was held");
    }
}
