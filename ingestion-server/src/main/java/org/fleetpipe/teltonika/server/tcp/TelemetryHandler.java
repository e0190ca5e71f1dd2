package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlScratch;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.server.ingest.HeldWrite;
import org.fleetpipe.teltonika.server.ingest.StreamFull;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AVL packets: decode, write every record, and only then ACK the record count. A packet that
 * does not decode is dead-lettered and never acknowledged; a failed write is not acknowledged
 * either, and the connection closes so the device resends.
 */
final class TelemetryHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(TelemetryHandler.class);
    /** Where a packet is checked and read, one per event loop: a packet lives there until the loop's next one. */
    private static final FastThreadLocal<AvlScratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected AvlScratch initialValue() {
            return new AvlScratch();
        }
    };

    private final AvlPacketDecoder decoder;
    private final TelemetryWriter writer;
    private final FrameRejector rejector;
    private final IngestionMetrics metrics;
    private final PendingCalls inFlight;
    /** The packet being written when back-pressure holds it (one at a time per connection). Event loop only. */
    private HeldWrite heldWrite;
    /** Inside channelRead's write call. Event loop only. */
    private boolean reading;

    TelemetryHandler(AvlPacketDecoder decoder, TelemetryWriter writer, FrameRejector rejector,
                     IngestionMetrics metrics, PendingCalls inFlight) {
        this.decoder = decoder;
        this.writer = writer;
        this.rejector = rejector;
        this.metrics = metrics;
        this.inFlight = inFlight;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DataFrame frame) || !frame.codec().isAvl()) {
            ctx.fireChannelRead(msg);
            return;
        }
        long startNanos = System.nanoTime();
        long receivedAt = System.currentTimeMillis();
        Channel channel = ctx.channel();
        DeviceSession session = DeviceSession.of(channel);
        try {
            AvlPacketView packet;
            try {
                metrics.frameReceived(frame.codec());
                // In the loop's scratch: the writer reads it during its call only (a packet
                // back-pressure holds is copied), and the next packet on this loop reuses it.
                packet = decoder.view(frame.body(), SCRATCH.get());
            } catch (CodecException e) {
                rejector.reject(channel, e, frame.content());
                return;
            }
            write(channel, session, packet, receivedAt, startNanos);
        } finally {
            frame.release();
        }
    }

    private void write(Channel channel, DeviceSession session, AvlPacketView packet, long receivedAt, long startNanos) {
        // In flight until the ACK is written, not just until Redis answered: a clean stop waits for
        // this, so a packet stored during the stop still gets its ACK and is not resent and stored twice.
        inFlight.begin();
        reading = true;
        try {
            CompletionStage<Integer> write = writer.write(session.imei(), packet, receivedAt, session.resendGuard(),
                    channel.eventLoop());
            if (write instanceof HeldWrite held) {
                // Kept only when it must be: a reference stored into this long-lived handler on every
                // packet dirties a card G1 scans in each young pause (about 10 ms with 10,000 devices).
                heldWrite = held;
            }
            afterWriteCompletes(write, channel, session, packet, startNanos);
        } finally {
            reading = false;
        }
    }

    private void afterWriteCompletes(CompletionStage<Integer> write, Channel channel, DeviceSession session,
                                     AvlPacketView packet, long startNanos) {
        write.whenComplete((stored, error) -> {
            // The MULTI blocks answer on the channel's own loop: no hop then (Lettuce answers on its own
            // thread). A write that completed at once still goes through the loop's queue: handled inline,
            // its ACK would start the next queued frame from inside this one's channelRead.
            if (channel.eventLoop().inEventLoop() && !reading) {
                afterWriteOnLoop(channel, session, packet, stored, error, startNanos);
                return;
            }
            try {
                channel.eventLoop().execute(() -> afterWriteOnLoop(channel, session, packet, stored, error, startNanos));
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                inFlight.end();
            }
        });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (heldWrite != null) {
            // Held by back-pressure: the device resends it on its next connection, so it is never written.
            heldWrite.abandon();
        }
        ctx.fireChannelInactive();
    }

    private void afterWriteOnLoop(Channel channel, DeviceSession session, AvlPacketView packet, Integer stored,
                                  Throwable error, long startNanos) {
        try {
            afterWrite(channel, session, packet, stored, error, startNanos);
        } finally {
            inFlight.end();
        }
    }

    private void afterWrite(Channel channel, DeviceSession session, AvlPacketView packet, Integer stored, Throwable error,
                            long startNanos) {
        heldWrite = null;
        if (StreamFull.is(error)) {
            // Counted and logged by the back-pressure, once for all devices, not per packet.
            if (channel.isActive()) {
                Disconnector.close(channel, DisconnectReason.STREAM_FULL, "telemetry stream full: records not acknowledged");
            }
            return;
        }
        if (error != null) {
            metrics.redisError("telemetry-write");
            LOG.warn("records not stored, no ACK imei={} records={}: {}", session.imeiText(), packet.size(),
                    error.toString());
            Disconnector.close(channel, DisconnectReason.REDIS_FAILURE, "telemetry write failed");
            return;
        }
        metrics.recordsWritten(packet.codec(), stored, packet.size());
        session.recordsStored(System.currentTimeMillis());
        if (!channel.isActive()) {
            // Stored but the device is gone: it will resend, a duplicate it is up to dedup to catch.
            return;
        }
        // No promise per ACK: a write that fails reaches exceptionCaught, which closes the connection.
        channel.writeAndFlush(Acks.writeRecordCount(channel.alloc().buffer(4), packet.size()), channel.voidPromise());
        metrics.ackLatencyNanos(System.nanoTime() - startNanos);
        FrameSequencer.frameDone(channel);
    }
}
