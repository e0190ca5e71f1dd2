package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.port;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.Optional;
import org.fleetpipe.teltonika.redis.ClusterUrl;

/**
 * The Redis every replica shares.
 *
 * @param url            empty means: start an embedded redis-server (development)
 * @param commandTimeout how long one Redis command may take before it fails
 * @param namespace      prefix of every key (several deployments in one Redis); on a Redis Cluster it
 *                       holds a hash tag, the slot of every key but the telemetry partitions
 * @param embeddedPort   the embedded redis-server's port when {@code url} is empty
 */
public record RedisSettings(Optional<String> url, Duration commandTimeout, String namespace, int embeddedPort) {

    static RedisSettings from(Config c) {
        String url = string(c, "redis.url").trim();
        String namespace = string(c, "redis.namespace");
        if (ClusterUrl.is(url) && !hasHashTag(namespace)) {
            // The scripts of the registry, the commands and the janitor touch several of these keys
            // at once, which a cluster allows only within one slot.
            throw refuse(c, "redis.namespace", "must hold a hash tag on a Redis Cluster, for example {fleet}: "
                    + "(OPERATIONS.md, \"Redis Cluster\")");
        }
        return new RedisSettings(url.isEmpty() ? Optional.empty() : Optional.of(checkedUrl(c, url)),
                positive(c, "redis.command-timeout"), namespace, port(c, "redis.embedded-port"));
    }

    /** Whether the URL names a Redis Cluster. */
    public boolean cluster() {
        return url.map(ClusterUrl::is).orElse(false);
    }

    /** A {@code {...}} with something inside: what Redis Cluster hashes instead of the whole key. */
    static boolean hasHashTag(String namespace) {
        int open = namespace.indexOf('{');
        int close = open < 0 ? -1 : namespace.indexOf('}', open + 1);
        return close > open + 1;
    }

    private static String checkedUrl(Config c, String url) {
        if (ClusterUrl.is(url)) {
            try {
                ClusterUrl.seeds(url);
            } catch (RuntimeException e) {
                throw refuse(c, "redis.url", "not a valid Redis Cluster URL (redis-cluster://host:port,host:port)");
            }
            return url;
        }
        if (!url.startsWith("redis://") && !url.startsWith("rediss://") && !url.startsWith("redis-sentinel://")) {
            throw refuse(c, "redis.url", "must start with redis://, rediss://, redis-sentinel:// or redis-cluster://");
        }
        io.lettuce.core.RedisURI parsed;
        try {
            parsed = io.lettuce.core.RedisURI.create(url);
        } catch (RuntimeException e) {
            parsed = null;
        }
        boolean sentinel = url.startsWith("redis-sentinel://");
        if (parsed == null || (!sentinel && !hostAndPortValid(url))
                || (isBlank(parsed.getHost()) && parsed.getSentinels().isEmpty())) {
            // The value is never echoed (SettingValues): it may hold a password.
            throw refuse(c, "redis.url", "not a valid Redis URL (host and port?)");
        }
        return url;
    }

    /** Lettuce accepts {@code redis://host:notaport} and fails only when it connects. */
    private static boolean hostAndPortValid(String url) {
        try {
            java.net.URI uri = new java.net.URI(url);
            return !isBlank(uri.getHost()) && (uri.getPort() == -1 || (uri.getPort() > 0 && uri.getPort() <= 65535));
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
