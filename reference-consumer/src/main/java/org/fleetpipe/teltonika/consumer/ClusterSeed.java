package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.RedisURI;

/**
 * A Redis Cluster URL as the servers take it, {@code redis-cluster://[:password@]host1:port1,host2:port2}
 * ({@code rediss-cluster://} for TLS): its first host, with the login and options, is all Lettuce's
 * cluster client needs to find the others. Written out here, not shared, so that this program's
 * sources stay readable and copyable on their own.
 */
final class ClusterSeed {

    private ClusterSeed() {
    }

    static boolean is(String url) {
        return url.startsWith("redis-cluster://") || url.startsWith("rediss-cluster://");
    }

    static RedisURI of(String url) {
        boolean tls = url.startsWith("rediss-cluster://");
        String rest = url.substring(url.indexOf("://") + 3);
        int query = rest.indexOf('?');
        String options = query < 0 ? "" : rest.substring(query);
        rest = query < 0 ? rest : rest.substring(0, query);
        int at = rest.lastIndexOf('@');
        String login = at < 0 ? "" : rest.substring(0, at + 1);
        String first = rest.substring(at + 1).split(",")[0].replaceAll("/+$", "");
        return RedisURI.create((tls ? "rediss://" : "redis://") + login + first + options);
    }
}
