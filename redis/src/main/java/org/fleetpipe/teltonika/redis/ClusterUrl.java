package org.fleetpipe.teltonika.redis;

import io.lettuce.core.RedisURI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Cluster's URL: {@code redis-cluster://[[user]:password@]host1:port1,host2:port2[?options]},
 * or {@code rediss-cluster://} for TLS. Each host is a seed; the password, TLS and options apply to
 * every node, as in a {@code redis://} URL.
 */
public final class ClusterUrl {

    private static final String PLAIN = "redis-cluster://";
    private static final String TLS = "rediss-cluster://";

    private ClusterUrl() {
    }

    public static boolean is(String url) {
        return url != null && (url.startsWith(PLAIN) || url.startsWith(TLS));
    }

    /** The seeds, one Lettuce URI per host. */
    public static List<RedisURI> seeds(String url) {
        boolean tls = url.startsWith(TLS);
        String rest = url.substring(tls ? TLS.length() : PLAIN.length());
        int query = rest.indexOf('?');
        String options = query < 0 ? "" : rest.substring(query);
        rest = query < 0 ? rest : rest.substring(0, query);
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        // The last '@': a password may hold one, a host list never does.
        int at = rest.lastIndexOf('@');
        String credentials = at < 0 ? null : rest.substring(0, at);
        String hosts = rest.substring(at + 1);
        if (hosts.contains("/")) {
            throw new IllegalArgumentException("a Redis Cluster URL has no database number: a cluster has only 0");
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : hosts.split(",")) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("empty host in the Redis Cluster URL");
            }
            RedisURI seed = RedisURI.create((tls ? "rediss://" : "redis://") + host.trim() + options);
            if (credentials != null) {
                login(seed, credentials);
            }
            seeds.add(seed);
        }
        return seeds;
    }

    /**
     * Any Redis URL ({@code redis://}, {@code rediss://}, or a cluster's) with its credentials
     * replaced by {@code ***}, for a log line. The credentials end at the authority's last
     * {@code @}, as {@link #seeds} reads them: a password may hold an {@code @}, a host list never does.
     */
    public static String redacted(String url) {
        int start = url.indexOf("://");
        if (start < 0) {
            return url;
        }
        start += 3;
        int end = url.indexOf('?', start);
        end = end < 0 ? url.length() : end;
        int at = url.lastIndexOf('@', end - 1);
        return at < start ? url : url.substring(0, start) + "***" + url.substring(at);
    }

    /** {@code [user]:password} or {@code password}, percent-encoded as in any URL. */
    private static void login(RedisURI seed, String credentials) {
        int colon = credentials.indexOf(':');
        String user = colon < 0 ? "" : decode(credentials.substring(0, colon));
        char[] password = decode(colon < 0 ? credentials : credentials.substring(colon + 1)).toCharArray();
        if (user.isEmpty()) {
            seed.setAuthentication(password);
        } else {
            seed.setAuthentication(user, password);
        }
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
