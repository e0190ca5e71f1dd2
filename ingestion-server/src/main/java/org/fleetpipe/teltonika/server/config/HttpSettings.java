package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;
import static org.fleetpipe.teltonika.server.config.SettingValues.typed;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.Optional;

/**
 * The HTTP listeners: the operator API's port and tokens, and the health port.
 *
 * @param port                     the operator API's port
 * @param bindAddress              the address both HTTP listeners bind to; the device bind address
 *                                 unless set
 * @param maxConnections           API port connections at once; more are answered 503 and closed
 * @param maxConnectionsPerAddress API port connections at once from one source address; more are
 *                                 answered 429 and closed; 0 = no cap
 * @param requestTimeout           a request's head and body must arrive within this, counted from
 *                                 the connection's start or the previous answer
 * @param healthPort               the health listener ({@code /health/*}, {@code /metrics}); 0 = a free port
 * @param healthMaxConnections     health port connections at once
 * @param healthMaxConnectionsPerAddress health port connections at once from one source address;
 *                                 past it (or past healthMaxConnections) the connection that waited
 *                                 longest for a request gives way; 0 = no cap
 * @param apiToken                 the operator token; empty = generated at start and logged once
 * @param readToken                the read-only API token (GET only), if any
 * @param answerBytesMax           bytes of large API answers (capture pages) read or written and not yet
 *                                 taken by their clients, across all connections; past it such a
 *                                 read is answered 503 with Retry-After
 */
public record HttpSettings(int port, String bindAddress, int maxConnections, int maxConnectionsPerAddress,
                           Duration requestTimeout, int healthPort, int healthMaxConnections,
                           int healthMaxConnectionsPerAddress, Optional<String> apiToken, Optional<String> readToken,
                           long answerBytesMax) {

    /** 32 characters: 128 bits as hex, far beyond guessing over HTTP. */
    static final int MIN_API_TOKEN_CHARS = 32;

    /** The most one page of a capture holds (its entries' bytes), and so the least answerBytesMax may be. */
    public static final long ANSWER_PAGE_BYTES = 1024 * 1024;


    /** Copy with other ports; tests bind to 0 to get free ones. */
    HttpSettings withPorts(int api, int health) {
        return new HttpSettings(api, bindAddress, maxConnections, maxConnectionsPerAddress, requestTimeout, health,
                healthMaxConnections, healthMaxConnectionsPerAddress, apiToken, readToken, answerBytesMax);
    }

    static HttpSettings from(Config c) {
        int httpPort = SettingValues.port(c, "http-port");
        int healthPort = SettingValues.port(c, "health-port");
        if (healthPort != 0 && healthPort == httpPort) {
            throw refuse(c, "health-port", "must differ from " + typed(c, "http-port")
                    + ": the probes get a listener of their own");
        }
        String token = string(c, "api-token").trim();
        if (!token.isEmpty() && token.length() < MIN_API_TOKEN_CHARS) {
            // A short token can be guessed; the value itself is never shown (SettingValues).
            throw refuse(c, "api-token", "must be at least " + MIN_API_TOKEN_CHARS
                    + " characters (openssl rand -hex 32 makes one), or unset for a generated one");
        }
        String readToken = string(c, "api-token-read").trim();
        if (!readToken.isEmpty() && readToken.length() < MIN_API_TOKEN_CHARS) {
            throw refuse(c, "api-token-read", "must be at least " + MIN_API_TOKEN_CHARS
                    + " characters (openssl rand -hex 32 makes one), or unset for none");
        }
        if (!readToken.isEmpty() && readToken.equals(token)) {
            throw refuse(c, "api-token-read", "must differ from the operator token (API_TOKEN)");
        }
        // Unset, the HTTP listeners bind where the devices' do.
        String bindAddress = ListenerSettings.bindAddress(c,
                string(c, "http.bind-address").trim().isEmpty() ? "bind-address" : "http.bind-address");
        return new HttpSettings(httpPort, bindAddress,
                intIn(c, "http.max-connections", 1, 100_000),
                intIn(c, "http.max-connections-per-address", 0, 100_000),
                positive(c, "http.request-timeout"),
                healthPort,
                intIn(c, "http.health-max-connections", 1, 100_000),
                intIn(c, "http.health-max-connections-per-address", 0, 100_000),
                token.isEmpty() ? Optional.empty() : Optional.of(token),
                readToken.isEmpty() ? Optional.empty() : Optional.of(readToken),
                SettingValues.longIn(c, "http.answer-bytes-max", ANSWER_PAGE_BYTES, 1L << 30));
    }
}
