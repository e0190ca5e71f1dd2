package org.fleetpipe.teltonika.server.session;

import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The single way the server closes a device connection: remember why, log one line, close. */
public final class Disconnector {

    private static final Logger LOG = LoggerFactory.getLogger(Disconnector.class);

    private Disconnector() {
    }

    public static void close(Channel channel, DisconnectReason reason, String detail) {
        DeviceSession session = DeviceSession.of(channel);
        boolean first = session.closeReason() == DisconnectReason.PEER_CLOSED && channel.isActive();
        session.closing(reason);
        if (first) {
            LOG.info("closing device connection imei={} remote={} reason={} detail={}", session.imeiText(),
                    session.remote(), reason.label(), detail);
        }
        channel.close();
    }
}
