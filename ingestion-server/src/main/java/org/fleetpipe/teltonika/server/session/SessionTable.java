package org.fleetpipe.teltonika.server.session;

import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.codec.Imei;

/** This instance's connected devices: IMEI to channel. A second login of an IMEI replaces the first. */
public final class SessionTable {

    private final Map<Imei, Channel> channels = new ConcurrentHashMap<>();

    /** Registers {@code channel}; an older channel of the same IMEI is closed. */
    public void register(Imei imei, Channel channel) {
        Channel older = channels.put(imei, channel);
        if (older != null && older != channel) {
            Disconnector.close(older, DisconnectReason.DUPLICATE_LOGIN, "the device logged in again");
        }
    }

    /** Removes the entry only if it is still this channel's. */
    public boolean unregister(Imei imei, Channel channel) {
        return channels.remove(imei, channel);
    }

    public Channel channelOf(Imei imei) {
        return channels.get(imei);
    }

    /** The channel of an IMEI given as text (from a Redis message); null when malformed or not here. */
    public Channel channelOf(String imeiText) {
        try {
            return channels.get(new Imei(imeiText));
        } catch (org.fleetpipe.teltonika.codec.CodecException e) {
            return null;
        }
    }

    public int size() {
        return channels.size();
    }

    public Iterable<Channel> channels() {
        return channels.values();
    }

    /** A snapshot of the entries; the table may change while the caller works through it. */
    public Map<Imei, Channel> snapshot() {
        return Map.copyOf(channels);
    }
}
