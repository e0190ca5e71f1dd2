package org.fleetpipe.teltonika.server.ingest;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;

/**
 * Persists the records of one packet; completes only when all of them are stored. What a caller may
 * be told instead: the stage fails with {@link StreamFull} when the stream's consumers are too far
 * behind (no ACK, the device resends later), and a write that waits for room rather than for Redis
 * is a {@link HeldWrite}, which the caller gives up when its connection closes.
 */
public interface TelemetryWriter {

    /**
     * Completes with the number of records newly stored (the rest were duplicates of records stored
     * before, so the whole packet may be acknowledged), or exceptionally when none may be.
     * {@code connection} is the packet's connection's {@link ResendGuard}. {@code loop} is the event
     * loop of the packet's channel, or null for a caller off the event loops (tools, tests): a write
     * made on its loop joins that loop's batch, any other goes alone. The packet's bytes are lent for
     * the call only: the caller may release them once it returns, so a writer that keeps the packet
     * longer keeps its {@link AvlPacketView#copy()}.
     */
    CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                   EventExecutor loop);

    /** A packet written off the event loops (tools, tests). */
    default CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection) {
        return write(imei, packet, receivedAtMillis, connection, null);
    }

    /** A packet without a connection (UDP, tools): checked against what was stored before. */
    default CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis) {
        return write(imei, packet, receivedAtMillis, ResendGuard.everyPacket(), null);
    }

    /** A packet made of record objects (tools, tests): encoded, then written as above. */
    default CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis, ResendGuard connection) {
        return write(imei, AvlPacketView.of(packet), receivedAtMillis, connection, null);
    }

    /** A packet of record objects without a connection. */
    default CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        return write(imei, AvlPacketView.of(packet), receivedAtMillis, ResendGuard.everyPacket(), null);
    }
}
