package org.fleetpipe.teltonika.server.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The HTTP listeners' own settings (the API port is {@link ServerSettings#httpPort()}).
 *
 * @param bindAddress              the address both HTTP listeners bind to; the device bind address
 *                                 unless set
 * @param maxConnections           API port connections at once; more are answered 503 and closed
 * @param maxConnectionsPerAddress API port connections at once from one source address; more are
 *                                 answered 429 and closed; 0 = no cap
 * @param requestTimeout           a request's head and body must arrive within this, counted from
 *                                 the connection's start or the previous answer
 * @param healthPort               the health listener ({@code /health/*}, {@code /metrics}); 0 = a free port
 * @param healthMaxConnections     health port connections at once
 * @param readToken                the read-only API token (GET only), if any
 */
public record HttpSettings(String bindAddress, int maxConnections, int maxConnectionsPerAddress,
                           Duration requestTimeout, int healthPort, int healthMaxConnections,
                           Optional<String> readToken) {

    /** Copy with another health port; tests bind to 0 to get a free one. */
    public HttpSettings withHealthPort(int port) {
        return new HttpSettings(bindAddress, maxConnections, maxConnectionsPerAddress, requestTimeout, port,
                healthMaxConnections, readToken);
    }
}
