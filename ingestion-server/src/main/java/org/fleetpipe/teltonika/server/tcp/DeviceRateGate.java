package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;

/**
 * Holds an AVL packet of a device over its rate budget until the budget covers it, then hands it on:
 * the device waits for its ACK, and {@link FrameSequencer} reads nothing more of it meanwhile, so a
 * flooding device slows itself and nobody else. Only the frame's header is read here.
 */
final class DeviceRateGate extends ChannelInboundHandlerAdapter {

    private final DeviceRateLimits rates;
    private final IngestionMetrics metrics;
    private final RefusalLog log;
    /** The frame waiting for the budget, at most one (FrameSequencer). Event loop only. */
    private DataFrame waiting;
    private ScheduledFuture<?> wake;

    DeviceRateGate(DeviceRateLimits rates, IngestionMetrics metrics, RefusalLog log) {
        this.rates = rates;
        this.metrics = metrics;
        this.log = log;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DataFrame frame) || !frame.codec().isAvl() || frame.bodyLength() < 2) {
            ctx.fireChannelRead(msg);
            return;
        }
        DeviceSession session = DeviceSession.of(ctx.channel());
        int records = frame.declaredRecords();
        long delay = rates.delayNanos(session.imei(), records, frame.content().readableBytes());
        if (delay == 0) {
            ctx.fireChannelRead(frame);
            return;
        }
        metrics.deviceRateDelayed();
        log.refused("device-rate/" + session.imeiText(), "device over its rate budget imei={} remote={}: a packet of "
                + "{} records waits {} ms (DEVICE_RECORDS_PER_SECOND, DEVICE_BYTES_PER_SECOND)", session.imeiText(),
                session.remote(), records, TimeUnit.NANOSECONDS.toMillis(delay));
        waiting = frame;
        wake = ctx.executor().schedule(() -> {
            DataFrame f = waiting;
            waiting = null;
            wake = null;
            if (f != null) {
                ctx.fireChannelRead(f);
            }
        }, delay, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        drop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        drop();
    }

    private void drop() {
        if (wake != null) {
            wake.cancel(false);
            wake = null;
        }
        if (waiting != null) {
            // Never acknowledged: the device resends it on its next connection.
            waiting.release();
            waiting = null;
        }
    }
}
