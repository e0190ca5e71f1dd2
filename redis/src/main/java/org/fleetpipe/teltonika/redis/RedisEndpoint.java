package org.fleetpipe.teltonika.redis;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import java.util.Optional;

/** Where a standalone Redis listens and how to log in, for connections not made by Lettuce. */
public record RedisEndpoint(String host, int port, String username, char[] password, int database, boolean tls,
                            SslVerifyMode verify) {

    /** The endpoint of a {@code redis://} or {@code rediss://} URL; empty for Sentinel, a cluster or a Unix socket. */
    public static Optional<RedisEndpoint> of(String url) {
        if (ClusterUrl.is(url)) {
            return Optional.empty();
        }
        RedisURI uri = RedisURI.create(url);
        if (!uri.getSentinels().isEmpty() || uri.getSocket() != null || uri.getHost() == null) {
            return Optional.empty();
        }
        // The URL's own user and password: a static provider, resolved at once.
        RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
        String username = credentials == null ? null : credentials.getUsername();
        char[] password = credentials == null || !credentials.hasPassword() ? null : credentials.getPassword();
        return Optional.of(new RedisEndpoint(uri.getHost(), uri.getPort(), username, password,
                uri.getDatabase(), uri.isSsl(), uri.getVerifyMode()));
    }

    @Override
    public String toString() {
        return (tls ? "rediss://" : "redis://") + host + ":" + port + "/" + database;
    }
}
