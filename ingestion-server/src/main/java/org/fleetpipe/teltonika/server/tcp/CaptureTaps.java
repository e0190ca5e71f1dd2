package org.fleetpipe.teltonika.server.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.server.capture.CaptureMetrics;
import org.fleetpipe.teltonika.server.capture.CaptureSink;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a {@link CaptureTap} into a device's pipeline and takes it out: at the login of a device
 * whose capture is active, and on {@code capture <imei>} on this instance's events channel (a
 * capture of a device held here started, changed or stopped: Redis says which). A connection not
 * captured has no tap and pays nothing.
 */
public final class CaptureTaps implements Consumer<String> {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureTaps.class);

    private final CaptureSink sink;
    private final CaptureMetrics metrics;
    private final SessionTable sessions;
    private final AtomicInteger active = new AtomicInteger();

    public CaptureTaps(CaptureSink sink, CaptureMetrics metrics, SessionTable sessions) {
        this.sink = sink;
        this.metrics = metrics;
        this.sessions = sessions;
        metrics.active(active::get);
    }

    CaptureSink sink() {
        return sink;
    }

    CaptureMetrics metrics() {
        return metrics;
    }

    /** Captured connections on this instance. */
    public int active() {
        return active.get();
    }

    void added() {
        active.incrementAndGet();
    }

    void removed() {
        active.decrementAndGet();
    }

    /** When the capture of {@code imei} ends, or null: asked once per login, right behind its registry claim. */
    CompletionStage<Long> activeUntil(String imei) {
        return sink.activeUntil(imei);
    }

    /** On the event loop, before the login answer is written: the tap, and the login frame it missed. */
    void startAtLogin(Channel channel, String imei, String loginText, long until) {
        if (until <= System.currentTimeMillis()) {
            return;
        }
        apply(channel, imei, until).login(loginText);
    }

    /** {@code capture <imei>}: the message is a hint, the capture key decides. */
    @Override
    public void accept(String imei) {
        Channel channel = sessions.channelOf(imei);
        if (channel == null) {
            return;
        }
        sink.activeUntil(imei).whenComplete((until, error) -> {
            if (error != null) {
                LOG.warn("capture not applied imei={}: Redis did not answer ({}); the device is captured from its"
                        + " next login", imei, error.toString());
                return;
            }
            try {
                channel.eventLoop().execute(() -> {
                    if (!channel.isActive()) {
                        return;
                    }
                    if (until != null && until > System.currentTimeMillis()) {
                        apply(channel, imei, until);
                    } else {
                        CaptureTap tap = channel.pipeline().get(CaptureTap.class);
                        if (tap != null) {
                            tap.leave();
                        }
                    }
                });
            } catch (RejectedExecutionException stopping) {
                // The server is stopping: its connections close.
            }
        });
    }

    /** On the event loop: the connection's tap, added or given the new end. */
    private CaptureTap apply(Channel channel, String imei, long until) {
        CaptureTap tap = channel.pipeline().get(CaptureTap.class);
        if (tap != null) {
            tap.extend(until);
            return tap;
        }
        tap = new CaptureTap(imei, until, this);
        channel.pipeline().addAfter(HandlerNames.FRAMES, HandlerNames.CAPTURE, tap);
        return tap;
    }

    /** Rejected bytes of a captured connection go to its capture too; {@code raw} is read, not released. */
    static void rejected(Channel channel, ByteBuf raw, String reason, boolean kept) {
        CaptureTap tap = channel.pipeline().get(CaptureTap.class);
        if (tap != null) {
            tap.rejected(raw, reason, kept);
        }
    }
}
