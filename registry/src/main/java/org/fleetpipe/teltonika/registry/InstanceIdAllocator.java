package org.fleetpipe.teltonika.registry;

import io.lettuce.core.api.sync.RedisCommands;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Gives each process lifetime its own id, {@code <prefix>-<INCR instance:seq>}, so a restarted
 * container is a new instance and never inherits the registry entries of its previous life.
 */
public final class InstanceIdAllocator {

    private InstanceIdAllocator() {
    }

    public static String allocate(RedisCommands<String, String> redis, RedisKeys keys, String prefix) {
        String base = prefix == null || prefix.isBlank() ? hostname() : prefix.trim();
        return base + "-" + redis.incr(keys.instanceSeq());
    }

    static String hostname() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "instance";
        }
    }
}
