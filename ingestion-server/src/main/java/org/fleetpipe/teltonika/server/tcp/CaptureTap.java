package org.fleetpipe.teltonika.server.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.codec.frame.PingFrame;
import org.fleetpipe.teltonika.server.capture.CaptureEntry;
import org.fleetpipe.teltonika.server.capture.CaptureSink;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A captured device's frames, both ways, to its capture stream. It sits right behind the frame
 * decoder, only in the pipeline of a captured connection: inbound it sees each frame as cut (login,
 * keep-alive, AVL or command frame, before any queueing), outbound every byte the server writes to
 * the device (the login answer, ACKs, command frames), since every writer sits behind it. Bytes the
 * decoder or a handler refuses reach it from {@link FrameRejector}. The entries, in the order they
 * happened on the connection:
 * <ul>
 * <li>{@code in}, {@code received login|keep-alive|codec <id>}: a frame as it came (the login is
 * the one this connection logged in with);</li>
 * <li>{@code out}, {@code login accepted|login refused}, {@code acknowledged <n>}, {@code sent}
 * (a command frame): what the server wrote;</li>
 * <li>{@code in}, {@code dead-lettered <reason>}: bytes dead-lettered (the connection closes): a
 * frame that could not be cut, or one cut (so captured just before) that did not decode;
 * {@code refused <reason>}: a frame dead-lettered while the connection stays;</li>
 * <li>{@code closed <reason>}, no hex: {@code in} when the device or its network ended the
 * connection ({@code peer-closed}, {@code io-error}), {@code out} when the server did;</li>
 * <li>no hex, {@code <n> entries not captured}: Redis was too slow or failing for them.</li>
 * </ul>
 * Entries are stored asynchronously, at most {@value #MAX_WAITING} waiting for Redis; the store
 * decides whether the capture is still on (and counts its bytes), and when it is not, the tap leaves.
 */
final class CaptureTap extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureTap.class);
    /** Entries sent to Redis and not answered yet; more are dropped (and counted) rather than queued. */
    static final int MAX_WAITING = 256;

    private final String imei;
    private final CaptureTaps taps;
    private long until;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> end;
    /** Event loop only, as every field. */
    private int waiting;
    private int dropped;
    private boolean over;

    CaptureTap(String imei, long until, CaptureTaps taps) {
        this.imei = imei;
        this.until = until;
        this.taps = taps;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        taps.added();
        scheduleEnd();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        over = true;
        if (end != null) {
            end.cancel(false);
        }
        taps.removed();
    }

    /** A new end (the capture was asked for again). */
    void extend(long newUntil) {
        until = newUntil;
        if (end != null) {
            end.cancel(false);
        }
        scheduleEnd();
    }

    private void scheduleEnd() {
        long left = until - System.currentTimeMillis();
        end = ctx.executor().schedule(this::leave, Math.max(0, left), TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Frame frame) {
            record(CaptureEntry.IN, hex(frame), received(frame));
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf bytes) {
            record(CaptureEntry.OUT, ByteBufUtil.hexDump(bytes), sent(bytes));
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        DisconnectReason reason = DeviceSession.of(ctx.channel()).closeReason();
        // The device (or its network) ended the connection, or the server did.
        boolean byDevice = reason == DisconnectReason.PEER_CLOSED || reason == DisconnectReason.IO_ERROR;
        record(byDevice ? CaptureEntry.IN : CaptureEntry.OUT, "", "closed " + reason.label());
        ctx.fireChannelInactive();
    }

    /** The login this connection logged in with, which went by before the tap was added. */
    void login(String text) {
        record(CaptureEntry.IN, hex(new LoginFrame(text)), "received login");
    }

    /** Bytes dead-lettered ({@code kept}: the connection stays); {@code raw} is read, not released. */
    void rejected(ByteBuf raw, String reason, boolean kept) {
        record(CaptureEntry.IN, ByteBufUtil.hexDump(raw), (kept ? "refused " : "dead-lettered ") + reason);
    }

    private static String hex(Frame frame) {
        if (frame instanceof DataFrame data) {
            return ByteBufUtil.hexDump(data.content());
        }
        if (frame instanceof LoginFrame login) {
            byte[] text = login.text().getBytes(StandardCharsets.ISO_8859_1);
            return String.format("%04x", text.length) + ByteBufUtil.hexDump(text);
        }
        return "ff";
    }

    private static String received(Frame frame) {
        if (frame instanceof DataFrame data) {
            return "received codec " + data.codec().label();
        }
        return frame == PingFrame.INSTANCE ? "received keep-alive" : "received login";
    }

    /** The server writes three things: the login answer (1 byte), a record-count ACK (4), a command frame. */
    private static String sent(ByteBuf bytes) {
        int n = bytes.readableBytes();
        int at = bytes.readerIndex();
        if (n == 1) {
            int answer = bytes.getUnsignedByte(at);
            return answer == 1 ? "login accepted" : answer == 0 ? "login refused" : "sent";
        }
        if (n == 4) {
            return "acknowledged " + bytes.getUnsignedInt(at);
        }
        return "sent";
    }

    private void record(String dir, String hex, String outcome) {
        if (over) {
            return;
        }
        if (waiting >= MAX_WAITING) {
            dropped++;
            taps.metrics().dropped();
            return;
        }
        if (dropped > 0) {
            store(CaptureEntry.of(dir, "", dropped + " entries not captured (Redis too slow or failing)"));
            dropped = 0;
        }
        store(CaptureEntry.of(dir, hex, outcome));
    }

    private void store(CaptureEntry entry) {
        waiting++;
        taps.sink().append(imei, entry).whenComplete((appended, error) -> {
            try {
                ctx.executor().execute(() -> stored(appended, error));
            } catch (RejectedExecutionException stopping) {
                // The loop is gone with the server; nothing is left to tidy.
            }
        });
    }

    private void stored(CaptureSink.Appended appended, Throwable error) {
        waiting--;
        if (error != null) {
            taps.metrics().dropped();
            LOG.debug("capture entry not stored imei={}: {}", imei, error.toString());
        } else if (appended == CaptureSink.Appended.STORED) {
            taps.metrics().written();
        } else {
            if (appended == CaptureSink.Appended.CAPPED) {
                taps.metrics().stoppedByCap();
                LOG.info("capture stopped imei={}: CAPTURE_MAX_BYTES reached (its stream says so last)", imei);
            }
            leave();
        }
    }

    /** Out of the pipeline: the capture ended, stopped or reached its cap. */
    void leave() {
        over = true;
        if (!ctx.isRemoved()) {
            ctx.pipeline().remove(this);
        }
    }
}
