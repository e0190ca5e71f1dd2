package org.fleetpipe.teltonika.server.admission;

import io.netty.channel.Channel;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;

/** Closes a logged-in device connection whose IMEI admission now refuses, with the reason that says why. */
final class Revocation {

    private Revocation() {
    }

    /** Closes {@code channel} on its event loop when {@code refusal} is not null; returns whether it will. */
    static boolean close(Channel channel, String refusal, String foundBy) {
        if (refusal == null) {
            return false;
        }
        boolean denied = refusal.equals("denied");
        DisconnectReason reason = denied ? DisconnectReason.DENIED : DisconnectReason.NOT_ALLOWED;
        String detail = (denied ? "the IMEI is on devices:denied" : "DEVICE_ADMISSION=allow-list and the IMEI was"
                + " removed from devices:allowed") + " (found " + foundBy + ")";
        channel.eventLoop().execute(() -> Disconnector.close(channel, reason, detail));
        return true;
    }
}
