package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Counts the (re)connections of one Lettuce connection. Redis's WAIT only covers writes sent on the
 * physical connection it runs on; after a reconnect (possibly to a newly promoted primary) a WAIT
 * says nothing about writes the old connection made, so {@link ReplicaAckBatcher} compares epochs.
 * Lettuce fires the event on the channel's activation, before any reply on the new channel is read.
 */
public final class ConnectionEpoch implements RedisConnectionStateListener, LongSupplier {

    private final AtomicLong epoch = new AtomicLong();
    private volatile StatefulConnection<?, ?> watched;

    /** Counts from now on the connections of {@code connection} (register this on its client first). */
    public void watch(StatefulConnection<?, ?> connection) {
        watched = connection;
        epoch.incrementAndGet();
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        if (connection == watched) {
            epoch.incrementAndGet();
        }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        if (connection == watched) {
            epoch.incrementAndGet();
        }
    }

    @Override
    public long getAsLong() {
        return epoch.get();
    }
}
