package org.fleetpipe.teltonika.registry;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Asks one live instance, on any replica, to drain and exit 0: writes its shutdown marker, which
 * the instance reads at its next heartbeat renewal (at once, when the events message arrives).
 */
public final class RemoteShutdown {

    /** Long enough for any renewal period; the instance deletes the marker when it stops. */
    public static final Duration MARKER_TTL = Duration.ofHours(1);

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;

    public RemoteShutdown(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    /** Completes with false when {@code instanceId} has no heartbeat (unknown, or already gone). */
    public CompletionStage<Boolean> request(String instanceId, String requestedBy) {
        return RegistryScripts.REQUEST_SHUTDOWN.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.heartbeat(instanceId), keys.shutdownMarker(instanceId)},
                requestedBy + " at " + System.currentTimeMillis(), Long.toString(MARKER_TTL.toMillis()),
                keys.instanceEvents(instanceId), instanceId, InstanceEvent.SHUTDOWN.verb()).thenApply(n -> n == 1L);
    }
}
