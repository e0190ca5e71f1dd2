package org.fleetpipe.teltonika.server.ingest;

import java.util.concurrent.CompletableFuture;

/** A packet's answer: completes with how many of its records were stored. */
final class PendingPacket extends CompletableFuture<Integer> {

    /** Records the packet adds (the repeats within it left out): what a MULTI block stores of it. */
    final int count;

    PendingPacket(int count) {
        this.count = count;
    }
}
