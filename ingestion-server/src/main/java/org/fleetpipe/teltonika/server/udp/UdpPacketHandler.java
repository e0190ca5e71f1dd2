package org.fleetpipe.teltonika.server.udp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.FrameOrigin;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.ingest.StreamFull;
import org.fleetpipe.teltonika.server.ingest.TelemetryWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.IntPredicate;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.ingest.UntrustedText;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.limits.NetworkKey;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One datagram, one packet: decode, admit, write, and ACK only after the records are stored. UDP
 * has no connection to slow down, so back-pressure is the socket itself: past {@code maxInFlight}
 * outstanding writes (dead letters included) it stops reading until half of them completed. The
 * records of all sources together are under one write budget, since any source can be spoofed.
 */
public final class UdpPacketHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    private static final Logger LOG = LoggerFactory.getLogger(UdpPacketHandler.class);
    private static final String WRITE_BUDGET = "write-budget";

    private final UdpPacketDecoder decoder;
    private final boolean luhnCheck;
    private final TelemetryWriter writer;
    private final FrameDeadLetters deadLetters;
    private final IngestionMetrics metrics;
    private final int maxInFlight;
    private final PendingCalls pending;
    private final UdpAdmissionGate admission;
    private final IntPredicate writeBudget;
    private final RefusalLog refusals;
    private final DeviceRateLimits rates;
    private int inFlight;
    private volatile boolean stopping;

    public UdpPacketHandler(UdpPacketDecoder decoder, boolean luhnCheck, TelemetryWriter writer,
                            FrameDeadLetters deadLetters, IngestionMetrics metrics, int maxInFlight,
                            PendingCalls pending, UdpAdmissionGate admission, IntPredicate writeBudget,
                            RefusalLog refusals, DeviceRateLimits rates) {
        this.decoder = decoder;
        this.luhnCheck = luhnCheck;
        this.writer = writer;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.maxInFlight = maxInFlight;
        this.pending = pending;
        this.admission = admission;
        this.writeBudget = writeBudget;
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
            // The claimed IMEI failed validation (or was never checked): stored escaped and cut, never raw.
            deadLetter(ctx.channel(), FrameOrigin.unauthenticated(sender.getAddress(),
                    header == null ? null : UntrustedText.escape(header.imeiText(), UntrustedText.IMEI_CHARS)),
                    e, datagram);
            return;
        }
        Channel channel = ctx.channel();
        int datagramBytes = datagram.content().readableBytes();
        workBegun(channel);
        pending.begin();
        CompletionStage<Integer> written;
        try {
            // The budgets are taken only for datagrams that would be stored, so refused ones cannot use them
            // up; the device's own first, so one flooding device cannot spend the instance's.
            written = admission.refusal(sender.getAddress(), imei).thenCompose(refusal -> refusal != null
                    ? CompletableFuture.failedFuture(new Refused(refusal))
                    : !rates.tryTakeNow(imei, packet.packet().size(), datagramBytes)
                    ? CompletableFuture.failedFuture(new OverRate())
                    : writeBudget.test(packet.packet().size()) ? writer.write(imei, AvlPacketView.of(packet.packet()), receivedAt,
                            ResendGuard.everyPacket(NetworkKey.of(sender.getAddress())), channel.eventLoop())
                    : CompletableFuture.failedFuture(new Refused(WRITE_BUDGET)));
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

    /**
     * The IMEI may not send (deny-list, not on the allow-list, not logged in over TCP, too many new
     * IMEIs from its network), or the UDP write budget is used up.
     */
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
        if (cause instanceof Refused refused && refused.reason.equals(WRITE_BUDGET)) {
            metrics.udpOverBudget();
            refusals.refused(WRITE_BUDGET, "UDP datagrams dropped without ACK: the instance's UDP write budget "
                    + "(MAX_UDP_RECORDS_PER_SECOND) is used up; e.g. imei={} remote={}", imei, sender);
            return;
        }
        if (cause instanceof Refused refused) {
            metrics.login(false, refused.reason);
            // Made-up IMEIs are many, their network one: one log line per network, not per IMEI.
            boolean byNetwork = refused.reason.equals(UdpAdmissionGate.NEW_IMEI_LIMIT)
                    || refused.reason.equals(UdpAdmissionGate.NOT_TCP_KNOWN)
                    || refused.reason.equals(UdpAdmissionGate.NOT_TCP_NETWORK);
            String key = byNetwork ? RefusalLog.networkKey(sender) : imei.value();
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
