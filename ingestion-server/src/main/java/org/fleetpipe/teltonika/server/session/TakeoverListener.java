package org.fleetpipe.teltonika.server.session;

import io.netty.channel.Channel;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/**
 * Another instance says it took over one of our devices: close our connection, but only if the
 * registry really names someone else now (the device may have come back here meanwhile).
 */
public final class TakeoverListener implements Consumer<String> {


    private final SessionTable sessions;
    private final ConnectionRegistry registry;
    private final Supplier<String> instanceId;
    private final IngestionMetrics metrics;

    public TakeoverListener(SessionTable sessions, ConnectionRegistry registry, Supplier<String> instanceId,
                            IngestionMetrics metrics) {
        this.sessions = sessions;
        this.registry = registry;
        this.instanceId = instanceId;
        this.metrics = metrics;
    }

    @Override
    public void accept(String imeiText) {
        Channel channel = sessions.channelOf(imeiText);
        if (channel == null) {
            return;
        }
        registry.ownerOf(new Imei(imeiText)).whenComplete((owner, error) -> {
            if (error == null && owner != null && !owner.equals(instanceId.get())) {
                metrics.registryTakenOver();
                channel.eventLoop().execute(() -> Disconnector.close(channel, DisconnectReason.TAKEN_OVER,
                        "the device logged in on instance " + owner));
            }
        });
    }
}
