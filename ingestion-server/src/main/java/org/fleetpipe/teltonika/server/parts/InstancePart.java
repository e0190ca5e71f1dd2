package org.fleetpipe.teltonika.server.parts;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.fleetpipe.teltonika.registry.HeartbeatRenewer;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.InstanceEvents;
import org.fleetpipe.teltonika.registry.InstanceIdAllocator;
import org.fleetpipe.teltonika.registry.InstanceIdentity;
import org.fleetpipe.teltonika.registry.RedisConnectionRegistry;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.lifecycle.HeartbeatMetrics;
import org.fleetpipe.teltonika.server.lifecycle.LogContext;
import org.fleetpipe.teltonika.server.lifecycle.TrackedConnectionRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance in Redis: its id, its heartbeat (created now, renewed once the listeners are up),
 * the events channel other instances reach it on, and the registry of the devices it holds.
 */
public final class InstancePart implements Part {

    private static final Logger LOG = LoggerFactory.getLogger(InstancePart.class);

    private final Shared shared;
    private final RedisPart redis;
    private InstanceIdentity identity;
    private HeartbeatRenewer heartbeat;
    private InstanceDirectory directory;
    private InstanceEvents events;
    private TrackedConnectionRegistry devices;

    public InstancePart(Shared shared, RedisPart redis) {
        this.shared = shared;
        this.redis = redis;
    }

    @Override
    public void start() {
        ServerSettings settings = shared.settings();
        RedisKeys keys = redis.keys();
        RedisClusterAsyncCommands<String, String> async = redis.async();
        String id = InstanceIdAllocator.allocate(redis.connector().sync(), keys,
                settings.instance().idPrefix());
        identity = new InstanceIdentity(id, InstanceIdAllocator.hostname(), System.currentTimeMillis(), version());
        LogContext.instance(id);
        heartbeat = new HeartbeatRenewer(async, keys, identity, settings.instance().heartbeatTtl(),
                settings.instance().heartbeatInterval(), settings.redis().commandTimeout(),
                settings.instance().maxKnownInstances(), shared.sessions()::size,
                settings.instance().heartbeatDeleteMeans());
        heartbeat.create();
        directory = new InstanceDirectory(async, keys);
        Long forgotten = directory.forgetDead().toCompletableFuture().join();
        if (forgotten > 0) {
            LOG.info("forgot {} known instance id(s) whose heartbeat is gone", forgotten);
        }
        HeartbeatMetrics.bind(shared.registry(), heartbeat);
        devices = new TrackedConnectionRegistry(new RedisConnectionRegistry(async, keys, identity,
                settings.devices().deviceInfoTtl(), settings.devices().hostile().deviceInfoTtlBeforeRecords()),
                shared.pending());
        events = new InstanceEvents(redis.connector().connectPubSub(), keys, settings.redis().commandTimeout())
                // The marker is the order; the message only saves waiting for the next renewal.
                .on(InstanceEvent.SHUTDOWN, requested -> heartbeat.renewSoon());
        events.listen(id);
    }

    private static String version() {
        String v = InstancePart.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    public InstanceIdentity identity() {
        return identity;
    }

    HeartbeatRenewer heartbeat() {
        return heartbeat;
    }

    InstanceDirectory directory() {
        return directory;
    }

    /** Where the other parts take their events from (each registers its own). */
    InstanceEvents events() {
        return events;
    }

    /** The registry entries of the devices held here. */
    TrackedConnectionRegistry devices() {
        return devices;
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) {
        if (stage == StopStage.RETIRE && heartbeat != null) {
            heartbeat.retire();
        } else if (stage == StopStage.CLOSE_REDIS && events != null) {
            events.close();
        }
    }
}
