package org.fleetpipe.teltonika.server.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;
import org.fleetpipe.teltonika.server.ingest.FrameOrigin;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/**
 * The one policy for a frame the codec refused: count it, dead-letter its bytes, close. Closing
 * even on a well-framed bad CRC makes the device reconnect and resend at once instead of waiting
 * for an ACK that will never come.
 */
final class FrameRejector {

    private final FrameDeadLetters deadLetters;
    private final IngestionMetrics metrics;

    FrameRejector(FrameDeadLetters deadLetters, IngestionMetrics metrics) {
        this.deadLetters = deadLetters;
        this.metrics = metrics;
    }

    /** {@code raw} is read, not released. */
    void reject(Channel channel, CodecException e, ByteBuf raw) {
        String reason = e.reason().label();
        metrics.frameRejected(reason);
        DeviceSession session = DeviceSession.of(channel);
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        CaptureTaps.rejected(channel, raw, reason, false);
        deadLetters.record(session.isLoggedIn() ? FrameOrigin.loggedIn(address, session.imeiText())
                : FrameOrigin.unauthenticated(address, null), reason, e.getMessage(), raw);
        Disconnector.close(channel, DisconnectReason.REJECTED_FRAME, e.getMessage());
    }

    /**
     * A well-formed frame a session rule refuses (a Codec 15 message naming another IMEI): counted
     * and dead-lettered like a rejected frame, but the connection stays, since closing would only
     * make the device reconnect and send it again. {@code raw} is read, not released.
     *
     * @return completes once the dead letter is stored or dropped, so the next frame can wait for it
     */
    CompletionStage<Void> refuseKeepingConnection(Channel channel, String reason, String detail, ByteBuf raw) {
        metrics.frameRejected(reason);
        CaptureTaps.rejected(channel, raw, reason, true);
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        return deadLetters.record(FrameOrigin.loggedIn(address, DeviceSession.of(channel).imeiText()), reason, detail,
                raw);
    }

    /**
     * A frame begun and not finished in time: counted and dead-lettered as {@code frame-timeout}
     * with its bytes so far, then closed. {@code partial} is read, not released.
     */
    void incomplete(Channel channel, ByteBuf partial, java.time.Duration timeout) {
        String reason = DisconnectReason.FRAME_TIMEOUT.label();
        String detail = partial.readableBytes() + " bytes of a frame not finished within " + timeout
                + " (FRAME_TIMEOUT)";
        metrics.frameRejected(reason);
        DeviceSession session = DeviceSession.of(channel);
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        CaptureTaps.rejected(channel, partial, reason, false);
        deadLetters.record(FrameOrigin.loggedIn(address, session.imeiText()), reason, detail, partial);
        Disconnector.close(channel, DisconnectReason.FRAME_TIMEOUT, detail);
    }

    /**
     * Bytes that may not come before login (a ping, a data frame): counted and closed, not
     * dead-lettered, since they say nothing about a device and anyone can send them.
     */
    void beforeLogin(Channel channel, String detail) {
        metrics.frameRejected("not-logged-in");
        Disconnector.close(channel, DisconnectReason.PROTOCOL_VIOLATION, detail);
    }
}
