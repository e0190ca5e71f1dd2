package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.channel.Channel;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.fleetpipe.teltonika.server.session.SessionTable;

/** A device connected here was put on the deny-list (on any replica): cut it off. */
public final class DenyListener implements Consumer<String> {

    private final SessionTable sessions;
    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;

    public DenyListener(SessionTable sessions, RedisAsyncCommands<String, String> redis, RedisKeys keys) {
        this.sessions = sessions;
        this.redis = redis;
        this.keys = keys;
    }

    @Override
    public void accept(String imeiText) {
        Channel channel = sessions.channelOf(imeiText);
        if (channel == null) {
            return;
        }
        // The message is a hint; the set decides (the IMEI may have been removed again meanwhile).
        redis.sismember(keys.deniedDevices(), imeiText).thenAccept(denied -> {
            if (denied) {
                channel.eventLoop().execute(() -> Disconnector.close(channel, DisconnectReason.DENIED,
                        "the IMEI was put on devices:denied"));
            }
        });
    }
}
