package org.fleetpipe.teltonika.server.udp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.FrameOrigin;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.stream.StreamFull;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One datagram, one packet: decode, write, and ACK only after the records are stored. UDP has no
 * connection to slow down, so back-pressure is the socket itself: past {@code maxInFlight}
 * outstanding writes (dead letters included) it stops reading until half of them completed.
 */
public final class UdpPacketHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    private static final Logger LOG = LoggerFactory.getLogger(UdpPacketHandler.class);
    private static final String NEW_IMEI_LIMIT = "new-imei-limit";

    private final UdpPacketDecoder decoder;
    private final boolean luhnCheck;
    private final TelemetryWriter writer;
    private final FrameDeadLetters deadLetters;
    private final IngestionMetrics metrics;
    private final int maxInFlight;
    private final PendingCalls pending;
    private final Admission admission;
    private final NewImeiLimit newImeis;
    private final RefusalLog refusals;
    private final DeviceRateLimits rates;
    private int inFlight;
    private volatile boolean stopping;

    public UdpPacketHandler(UdpPacketDecoder decoder, boolean luhnCheck, TelemetryWriter writer,
                            FrameDeadLetters deadLetters, IngestionMetrics metrics, int maxInFlight,
                            PendingCalls pending, Admission admission, NewImeiLimit newImeis,
                            RefusalLog refusals, DeviceRateLimits rates) {
        this.decoder = decoder;
        this.luhnCheck = luhnCheck;
        this.writer = writer;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.maxInFlight = maxInFlight;
        this.pending = pending;
        this.admission = admission;
        this.newImeis = newImeis;
        this.refusals = refusals;
        this.rates = rates;
    }

    /** From now on the socket stays off when in-flight writes drain (see {@link UdpServer#stopReading()}). */
    public void stopping() {
        stopping = true;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket datagram) {
        long startNanos = System.nanoTime();
        long receivedAt = System.currentTimeMillis();
        InetSocketAddress sender = datagram.sender();
        UdpPacket packet;
        Imei imei;
        try {
            packet = decoder.decode(datagram.content());
            metrics.frameReceived(packet.packet().codec());
            imei = Imei.parse(packet.imeiText(), luhnCheck);
        } catch (CodecException e) {
            metrics.frameRejected(e.reason().label());
            UdpPacketDecoder.UdpHeader header = UdpPacketDecoder.peekHeader(datagram.content());
            deadLetter(ctx.channel(), FrameOrigin.unauthenticated(sender.getAddress(),
                    header == null ? null : header.imeiText()), e, datagram);
            return;
        }
        Channel channel = ctx.channel();
        int datagramBytes = datagram.content().readableBytes();
        workBegun(channel);
        pending.begin();
        CompletionStage<Integer> written;
        try {
            // Every datagram carries its IMEI: the deny- and allow-lists apply to each, as to a TCP login.
            written = admission.refusal(imei).thenCompose(refusal -> refusal == null
                    ? newImeis.admits(sender.getAddress(), imei).thenCompose(admitted -> !admitted
                            ? CompletableFuture.failedFuture(new Refused(NEW_IMEI_LIMIT))
                            : rates.tryTakeNow(imei, packet.packet().size(), datagramBytes)
                            ? writer.write(imei, packet.packet(), receivedAt)
                            : CompletableFuture.failedFuture(new OverRate()))
                    : CompletableFuture.failedFuture(new Refused(refusal)));
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        onLoopWhenDone(channel, written,
                (stored, error) -> afterWrite(channel, sender, packet, imei, stored, error, startNanos));
    }

    /** Runs {@code then} on the channel's event loop once {@code work} completed; ends one pending call either way. */
    private <T> void onLoopWhenDone(Channel channel, CompletionStage<T> work,
                                    java.util.function.BiConsumer<T, Throwable> then) {
        work.whenComplete((value, error) -> {
            try {
                channel.eventLoop().execute(() -> {
                    try {
                        then.accept(value, error);
                    } finally {
                        pending.end();
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                pending.end();
            }
        });
    }

    /** A dead letter is work in flight like a write: spoofed garbage must not outrun the in-flight limit. */
    private void deadLetter(Channel channel, FrameOrigin origin, CodecException e, DatagramPacket datagram) {
        CompletionStage<Void> stored = deadLetters.record(origin, e.reason().label(), e.getMessage(),
                datagram.content());
        if (stored.toCompletableFuture().isDone()) {
            return;
        }
        workBegun(channel);
        pending.begin();
        onLoopWhenDone(channel, stored, (ok, error) -> workDone(channel));
    }

    private void workBegun(Channel channel) {
        if (++inFlight >= maxInFlight) {
            channel.config().setAutoRead(false);
        }
    }

    private void workDone(Channel channel) {
        if (--inFlight <= maxInFlight / 2 && !channel.config().isAutoRead() && !stopping) {
            channel.config().setAutoRead(true);
        }
    }

    /** The IMEI may not send (deny-list, not on the allow-list, or too many new IMEIs from its address). */
    private static final class Refused extends RuntimeException {
        private final String reason;

        Refused(String reason) {
            super(reason, null, false, false);
            this.reason = reason;
        }
    }

    /** The device is over its rate budget: the datagram is dropped unacknowledged, and the device resends it. */
    private static final class OverRate extends RuntimeException {
        OverRate() {
            super("over the device's rate budget", null, false, false);
        }
    }

    private void afterWrite(Channel channel, InetSocketAddress sender, UdpPacket packet, Imei imei, Integer stored,
                            Throwable error, long startNanos) {
        workDone(channel);
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof Refused refused) {
            metrics.login(false, refused.reason);
            // Made-up IMEIs are many, their address one: one log line per address, not per IMEI.
            String key = refused.reason.equals(NEW_IMEI_LIMIT) ? RefusalLog.addressKey(sender) : imei.value();
            refusals.refused(refused.reason + "/" + key, "UDP datagram refused imei={} remote={} reason={}", imei,
                    sender, refused.reason);
            return;
        }
        if (cause instanceof OverRate) {
            metrics.deviceRateDropped();
            refusals.refused("device-rate/" + imei.value(), "UDP datagram dropped imei={} remote={}: the device is over "
                    + "its rate budget (DEVICE_RECORDS_PER_SECOND, DEVICE_BYTES_PER_SECOND)", imei, sender);
            return;
        }
        if (StreamFull.is(cause)) {
            // No ACK: the device resends later. Counted and logged by the back-pressure.
            return;
        }
        if (error != null) {
            metrics.redisError("telemetry-write");
            LOG.warn("UDP records not stored, no ACK imei={} records={}: {}", imei, packet.packet().size(),
                    error.toString());
            return;
        }
        metrics.recordsWritten(packet.packet().codec(), stored, packet.packet().size());
        UdpAck ack = new UdpAck(packet.packetId(), packet.avlPacketId(), packet.packet().size());
        channel.writeAndFlush(new DatagramPacket(ack.writeTo(channel.alloc().buffer(UdpAck.BYTES)), sender));
        metrics.ackLatencyNanos(System.nanoTime() - startNanos);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("UDP listener error", cause);
    }
}
