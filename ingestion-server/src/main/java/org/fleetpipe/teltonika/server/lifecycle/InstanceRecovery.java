package org.fleetpipe.teltonika.server.lifecycle;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;
import org.fleetpipe.teltonika.registry.HeartbeatRenewer;
import org.fleetpipe.teltonika.registry.InstanceEvents;
import org.fleetpipe.teltonika.registry.InstanceIdAllocator;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the instance does when its heartbeat is lost or it is told to stop. The operator's shutdown
 * marker (and, with {@code HEARTBEAT_DELETE_MEANS=shutdown}, a deleted heartbeat) stops the process
 * like SIGTERM. A lost heartbeat (expired, deleted, or gone with a
 * restore of an older snapshot, a failover to a lagging replica or an eviction) means the cluster
 * may have evicted our entries and moved on: come back under a fresh id, keep each device only
 * where nobody else took it, and close the connections of those that another instance now owns,
 * so no device stays connected to an instance the registry does not name.
 */
public final class InstanceRecovery implements HeartbeatRenewer.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(InstanceRecovery.class);
    private static final long RETRY_MILLIS = 1000;

    private final RedisClusterCommands<String, String> redis;
    private final RedisKeys keys;
    private final String idPrefix;
    private final HeartbeatRenewer heartbeat;
    private final InstanceEvents events;
    private final SessionTable sessions;
    private final ConnectionRegistry registry;
    private final Runnable remoteShutdown;
    private final java.util.function.Consumer<Imei> reclaimed;

    /** {@code reclaimed} hears of each device kept under the new id (its pending commands are drained). */
    public InstanceRecovery(RedisClusterCommands<String, String> redis, RedisKeys keys, String idPrefix,
                            HeartbeatRenewer heartbeat, InstanceEvents events, SessionTable sessions,
                            ConnectionRegistry registry, Runnable remoteShutdown,
                            java.util.function.Consumer<Imei> reclaimed) {
        this.redis = redis;
        this.keys = keys;
        this.idPrefix = idPrefix;
        this.heartbeat = heartbeat;
        this.events = events;
        this.sessions = sessions;
        this.registry = registry;
        this.remoteShutdown = remoteShutdown;
        this.reclaimed = reclaimed;
    }

    @Override
    public void remoteShutdown(String id, String why) {
        LOG.warn("instance={} was told to stop ({}): draining and exiting", id, why);
        Thread stopper = new Thread(remoteShutdown, "remote-shutdown");
        stopper.start();
    }

    @Override
    public void expired(String oldId, String why) {
        String newId;
        try {
            newId = newIdOtherThan(oldId);
            heartbeat.adopt(newId);
            LogContext.instance(newId);
            events.listen(newId);
        } catch (RuntimeException e) {
            LOG.warn("instance={} could not come back under a new id yet ({}); retrying", oldId, e.getMessage());
            sleepQuietly();
            heartbeat.execute(() -> expired(oldId, why));
            return;
        }
        Map<Imei, Channel> held = sessions.snapshot();
        LOG.warn("instance={} came back as instance={} after losing its heartbeat ({}); re-claiming {} device(s)",
                oldId, newId, why, held.size());
        AtomicInteger kept = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        held.forEach((imei, channel) -> registry.reclaim(imei, oldId, newId).whenComplete((ok, error) -> {
            if (error == null && ok) {
                kept.incrementAndGet();
                reclaimed.accept(imei);
                return;
            }
            closed.incrementAndGet();
            channel.eventLoop().execute(() -> Disconnector.close(channel, DisconnectReason.TAKEN_OVER,
                    error != null ? "could not re-claim after the heartbeat was lost"
                            : "another instance owns the device now"));
        }));
        heartbeat.renewSoon();
    }

    private String newIdOtherThan(String oldId) {
        String id = InstanceIdAllocator.allocate(redis, keys, idPrefix);
        // A restore took instance:seq back: the old id must not come back, others may judge it dead.
        return id.equals(oldId) ? InstanceIdAllocator.allocate(redis, keys, idPrefix) : id;
    }

    private static void sleepQuietly() {
        try {
            TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
