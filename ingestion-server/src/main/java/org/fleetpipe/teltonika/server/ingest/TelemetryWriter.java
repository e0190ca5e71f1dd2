package org.fleetpipe.teltonika.server.ingest;

import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;

/** Persists the records of one packet; completes only when all of them are stored. */
public interface TelemetryWriter {

    /**
     * Completes with the number of records newly stored (the rest were duplicates of records stored
     * before, so the whole packet may be acknowledged), or exceptionally when none may be.
     * {@code connection} is the packet's connection's {@link ResendGuard}. The packet's bytes are
     * lent for the call only: the caller may release them once it returns, so a writer that keeps
     * the packet longer keeps its {@link AvlPacketView#copy()}.
     */
    CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection);

    /** A packet without a connection (UDP, tools): checked against what was stored before. */
    default CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis) {
        return write(imei, packet, receivedAtMillis, ResendGuard.everyPacket());
    }

    /** A packet made of record objects (tools, tests): encoded, then written as above. */
    default CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis, ResendGuard connection) {
        return write(imei, AvlPacketView.of(packet), receivedAtMillis, connection);
    }

    /** A packet of record objects without a connection. */
    default CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        return write(imei, AvlPacketView.of(packet), receivedAtMillis, ResendGuard.everyPacket());
    }
}
