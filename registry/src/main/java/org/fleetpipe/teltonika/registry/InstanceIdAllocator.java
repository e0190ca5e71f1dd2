package org.fleetpipe.teltonika.registry;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Gives each process lifetime its own id, {@code <prefix>-<INCR instance:seq>}, so a restarted
 * container is a new instance and never inherits the registry entries of its previous life.
 */
public final class InstanceIdAllocator {

    private InstanceIdAllocator() {
    }

    public static String allocate(RedisClusterCommands<String, String> redis, RedisKeys keys, String prefix) {
        return base(prefix) + "-" + redis.incr(keys.instanceSeq());
    }

    /** The id prefix: the configured one, else the host name. */
    public static String base(String prefix) {
        return prefix == null || prefix.isBlank() ? hostname() : prefix.trim();
    }

    public static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "instance";
        }
    }
}
