package org.fleetpipe.teltonika.server.admission;

import io.netty.channel.Channel;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.session.SessionTable;

/**
 * A device connected here was put on the deny-list, or taken off the allow-list, on any replica
 * ({@code deny <imei>} or {@code revoke <imei>} on this instance's events channel): cut it off.
 */
public final class RevocationListener implements Consumer<String> {

    private final SessionTable sessions;
    private final Admission admission;

    public RevocationListener(SessionTable sessions, Admission admission) {
        this.sessions = sessions;
        this.admission = admission;
    }

    @Override
    public void accept(String imeiText) {
        Channel channel = sessions.channelOf(imeiText);
        if (channel == null) {
            return;
        }
        Imei imei;
        try {
            imei = Imei.parse(imeiText, false);
        } catch (CodecException e) {
            return;
        }
        // The message is a hint; the sets decide (the change may have been undone meanwhile).
        admission.refusal(imei).thenAccept(refusal -> Revocation.close(channel, refusal, "by the message"));
    }
}
