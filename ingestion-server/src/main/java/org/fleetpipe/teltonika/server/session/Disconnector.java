package org.fleetpipe.teltonika.server.session;

import io.netty.channel.Channel;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single way the server closes a device connection: remember why, log a line (at most
 * {@value #LINES_PER_MINUTE} a minute per reason, the rest summed up), close.
 */
public final class Disconnector {

    private static final Logger LOG = LoggerFactory.getLogger(Disconnector.class);
    static final int LINES_PER_MINUTE = 10;
    private static final CloseLog LINES = new CloseLog(LOG, LINES_PER_MINUTE, Duration.ofMinutes(1));

    private Disconnector() {
    }

    public static void close(Channel channel, DisconnectReason reason, String detail) {
        DeviceSession session = DeviceSession.of(channel);
        boolean first = session.closeReason() == DisconnectReason.PEER_CLOSED && channel.isActive();
        session.closing(reason);
        if (first) {
            LINES.closing(channel.eventLoop(), reason, "closing device connection imei={} remote={} reason={} detail={}",
                    session.imeiText(), session.remote(), reason.label(), detail);
        }
        channel.close();
    }
}
