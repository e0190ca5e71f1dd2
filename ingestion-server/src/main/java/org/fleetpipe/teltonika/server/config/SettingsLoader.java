package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.fraction;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.longIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.notNegative;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.port;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;
import static org.fleetpipe.teltonika.server.config.SettingValues.typed;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValueFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.registry.janitor.JanitorSettings;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.admission.UdpAdmission;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.limits.DeviceRateSettings;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.stream.RetentionMode;
import org.fleetpipe.teltonika.server.stream.StreamRetentionSettings;

/**
 * Reads {@link ServerSettings}: environment variables (env-overrides.conf) over system properties
 * over application.conf over reference.conf. Any bad value becomes one {@link SettingsException}
 * naming the variable, the key and the value typed ({@link SettingValues}).
 */
public final class SettingsLoader {

    private static final String ROOT = SettingValues.ROOT;
    /** 32 characters: 128 bits as hex, far beyond guessing over HTTP. */
    static final int MIN_API_TOKEN_CHARS = 32;
    private static final String[] LOG_LEVELS = {"trace", "debug", "info", "warn", "error", "off"};

    private SettingsLoader() {
    }

    /** Settings from the process environment and the classpath. */
    public static ServerSettings load() {
        return load(Map.of());
    }

    /** As {@link #load()}, with {@code overrides} (paths under {@code teltonika.server}) on top; for tests. */
    public static ServerSettings load(Map<String, ?> overrides) {
        return load(ConfigFactory.systemEnvironment(), overrides);
    }

    /** As {@link #load(Map)} with {@code environment} standing in for the process environment; for tests. */
    static ServerSettings loadWithEnvironment(Map<String, String> environment, Map<String, ?> overrides) {
        return load(ConfigValueFactory.fromMap(environment, SettingValues.ENV_ORIGIN).toConfig(), overrides);
    }

    private static ServerSettings load(Config environment, Map<String, ?> overrides) {
        try {
            return from(resolve(environment, overrides));
        } catch (ConfigException e) {
            // A broken application.conf, say; the values themselves are checked in from().
            throw new SettingsException(e.getMessage().replaceAll("[\\r\\n]+", " "), e);
        }
    }

    /**
     * {@code LOG_FORMAT} as logback needs it before the settings are checked: {@code json} or
     * {@code text}, in any case; anything else is {@code text} here and refused by {@link #load()}.
     */
    public static String logFormat() {
        return leniently("log.format", "text", "text", "json");
    }

    /** {@code LOG_LEVEL} for logback, in upper case; a bad value is INFO here and refused by {@link #load()}. */
    public static String logLevel() {
        return leniently("log.level", "info", LOG_LEVELS).toUpperCase(Locale.ROOT);
    }

    private static String leniently(String key, String fallback, String... allowed) {
        try {
            return oneOf(resolve(ConfigFactory.systemEnvironment(), Map.of()), key, allowed);
        } catch (RuntimeException e) {
            return fallback;
        }
    }

    private static Config resolve(Config environment, Map<String, ?> overrides) {
        ConfigFactory.invalidateCaches();
        // The environment sits at the root, where env-overrides.conf's ${?NAME} finds it.
        return ConfigFactory.parseMap(prefixed(overrides), "test overrides")
                .withFallback(ConfigFactory.parseResourcesAnySyntax("env-overrides"))
                .withFallback(ConfigFactory.systemProperties())
                .withFallback(ConfigFactory.defaultApplication())
                .withFallback(ConfigFactory.defaultReference())
                .withFallback(environment)
                .resolve(ConfigResolveOptions.noSystem())
                .getConfig(ROOT);
    }

    private static Map<String, Object> prefixed(Map<String, ?> overrides) {
        java.util.LinkedHashMap<String, Object> out = new java.util.LinkedHashMap<>();
        overrides.forEach((k, v) -> out.put(ROOT + "." + k, v));
        return out;
    }

    static ServerSettings from(Config c) {
        DecodeLimits limits;
        try {
            limits = new DecodeLimits(
                    intIn(c, "limits.max-frame-bytes", 45, 16 * 1024 * 1024),
                    intIn(c, "limits.max-records-per-packet", 1, 255),
                    intIn(c, "limits.max-io-per-record", 0, 65535),
                    intIn(c, "limits.max-variable-io-bytes", 0, 65535),
                    DecodeLimits.DEFAULTS.maxLoginBytes());
        } catch (IllegalArgumentException e) {
            throw new SettingsException(ROOT + ".limits: " + e.getMessage(), e);
        }
        String url = string(c, "redis.url").trim();
        String token = string(c, "api-token").trim();
        if (!token.isEmpty() && token.length() < MIN_API_TOKEN_CHARS) {
            // A short token can be guessed; the value itself is never shown (SettingValues).
            throw refuse(c, "api-token", "must be at least " + MIN_API_TOKEN_CHARS
                    + " characters (openssl rand -hex 32 makes one), or unset for a generated one");
        }
        Duration ttl = positive(c, "heartbeat.ttl");
        Duration interval = positive(c, "heartbeat.interval");
        if (interval.multipliedBy(2).compareTo(ttl) > 0) {
            throw refuse(c, "heartbeat.interval", interval.toMillis() + " ms must be at most half of "
                    + typed(c, "heartbeat.ttl") + ", " + ttl.toMillis() + " ms");
        }
        // Read by logback before this (logFormat, logLevel); checked here so a typo stops the start.
        oneOf(c, "log.format", "text", "json");
        oneOf(c, "log.level", LOG_LEVELS);
        String bind = bindAddress(c, "bind-address");
        ServerSettings s = new ServerSettings(
                bind,
                port(c, "tcp-port"),
                port(c, "udp-port"),
                port(c, "http-port"),
                tls(c),
                url.isEmpty() ? Optional.empty() : Optional.of(redisUrl(c, url)),
                positive(c, "redis.command-timeout"),
                string(c, "redis.namespace"),
                port(c, "redis.embedded-port"),
                string(c, "instance-id-prefix"),
                token.isEmpty() ? Optional.empty() : Optional.of(token),
                ttl,
                interval,
                intIn(c, "registry.max-known-instances", 10, 10_000_000),
                positive(c, "registry.device-info-ttl"),
                new JanitorSettings(positive(c, "janitor.interval"), fraction(c, "janitor.jitter"),
                        bool(c, "janitor.dry-run"), intIn(c, "janitor.scan-count", 1, 100_000)),
                new CommandSettings(positive(c, "commands.reply-timeout"), positive(c, "commands.default-ttl"),
                        positive(c, "commands.max-ttl"), intIn(c, "commands.max-queue-per-device", 1, 100_000),
                        intIn(c, "commands.max-command-bytes", 1, 65_536), positive(c, "commands.max-wait"),
                        positive(c, "commands.retention"),
                        intIn(c, "commands.dead-letter-max-entries", 1, 10_000_000),
                        positive(c, "commands.sweep-interval"),
                        intIn(c, "commands.max-attempts", 1, CommandSettings.MAX_ATTEMPTS_LIMIT),
                        notNegative(c, "commands.quiet-gap")),
                new OpsSettings(positive(c, "ops.queue-health.interval"), positive(c, "ops.queue-health.stuck-after"),
                        longIn(c, "ops.queue-health.commands-degraded-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.commands-unhealthy-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.dead-letters-degraded-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.dead-letters-unhealthy-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.unhealthy-stuck", 1, Long.MAX_VALUE),
                        positive(c, "dead-letters.ttl"), positive(c, "ops.purge.interval"),
                        intIn(c, "ops.purge.orphan-scan-per-pass", 1, 10_000_000)),
                bool(c, "imei-luhn-check"),
                admissionMode(c, "admission.mode"),
                positive(c, "admission.refusal-log-interval"),
                positive(c, "admission.deny-sweep-interval"),
                intIn(c, "limits.max-connections-per-address", 0, 10_000_000),
                intIn(c, "limits.max-new-connections-per-address-per-second", 0, 10_000_000),
                limits,
                intIn(c, "limits.max-connections", 1, 10_000_000),
                intIn(c, "limits.max-queued-frames", 1, 4096),
                intIn(c, "limits.max-udp-in-flight", 1, 1_000_000),
                positive(c, "timeouts.login"),
                positive(c, "timeouts.read-idle"),
                retention(c),
                notNegative(c, "telemetry.dedup-window"),
                intIn(c, "telemetry.ack-replicas", 0, 100),
                positive(c, "telemetry.ack-replicas-timeout"),
                intIn(c, "telemetry.dedup-per-device", 1, 100_000),
                oneOf(c, "telemetry.write-path", "transaction", "script").equals("transaction"),
                intIn(c, "dead-letters.max-entries", 1, 10_000_000),
                intIn(c, "dead-letters.max-frame-bytes", 16, 16 * 1024 * 1024),
                positive(c, "shutdown.grace"),
                notNegative(c, "shutdown.drain-window"),
                intIn(c, "io-threads", 0, 1024),
                hostileClientLimits(c, limits),
                http(c, bind, token));
        return s;
    }

    private static HttpSettings http(Config c, String bind, String operatorToken) {
        int httpPort = port(c, "http-port");
        int healthPort = port(c, "health-port");
        if (healthPort != 0 && healthPort == httpPort) {
            throw refuse(c, "health-port", "must differ from " + typed(c, "http-port")
                    + ": the probes get a listener of their own");
        }
        String readToken = string(c, "api-token-read").trim();
        if (!readToken.isEmpty() && readToken.length() < MIN_API_TOKEN_CHARS) {
            throw refuse(c, "api-token-read", "must be at least " + MIN_API_TOKEN_CHARS
                    + " characters (openssl rand -hex 32 makes one), or unset for none");
        }
        if (!readToken.isEmpty() && readToken.equals(operatorToken)) {
            throw refuse(c, "api-token-read", "must differ from the operator token (API_TOKEN)");
        }
        return new HttpSettings(string(c, "http.bind-address").trim().isEmpty() ? bind
                : bindAddress(c, "http.bind-address"),
                intIn(c, "http.max-connections", 1, 100_000),
                intIn(c, "http.max-connections-per-address", 0, 100_000),
                positive(c, "http.request-timeout"),
                healthPort,
                intIn(c, "http.health-max-connections", 1, 100_000),
                readToken.isEmpty() ? Optional.empty() : Optional.of(readToken));
    }

    private static HostileClientLimits hostileClientLimits(Config c, DecodeLimits decodeLimits) {
        return new HostileClientLimits(
                intIn(c, "limits.max-pre-login-connections", 1, 10_000_000),
                intIn(c, "limits.max-pre-login-connections-per-address", 0, 10_000_000),
                intIn(c, "limits.max-new-imeis-per-address-per-minute", 0, 10_000_000),
                positive(c, "registry.device-info-ttl-before-records"),
                intIn(c, "dead-letters.max-per-second", 1, 1_000_000),
                intIn(c, "dead-letters.max-per-address-per-minute", 1, 1_000_000),
                intIn(c, "dead-letters.max-unauthenticated-frame-bytes", 16, 16 * 1024 * 1024),
                intIn(c, "redis.request-queue-size", 100, Integer.MAX_VALUE),
                intIn(c, "limits.max-device-messages-per-minute", 1, 1_000_000),
                intIn(c, "limits.max-device-message-text-bytes", 16, 16 * 1024 * 1024),
                acceptsPerSecond(c),
                deviceRates(c, decodeLimits.maxFrameBytes()),
                fraction(c, "telemetry.backpressure.device-share"),
                heldBytes(c),
                intIn(c, "limits.max-accepts-per-network-per-second", 0, 10_000_000),
                UdpAdmission.of(oneOf(c, "admission.udp", UdpAdmission.TCP_KNOWN.label(), UdpAdmission.ANY.label())),
                udpRecordsPerSecond(c, decodeLimits));
    }

    private static DeviceRateSettings deviceRates(Config c, int maxFrameBytes) {
        int records = intIn(c, "limits.device-records-per-second", 0, 10_000_000);
        int recordsBurst = intIn(c, "limits.device-records-burst", 1, 100_000_000);
        int bytes = intIn(c, "limits.device-bytes-per-second", 0, 1_000_000_000);
        int bytesBurst = intIn(c, "limits.device-bytes-burst", 1, 1_000_000_000);
        // A datagram is taken whole or dropped: a burst below one packet would drop it forever.
        if (records > 0 && recordsBurst < 255) {
            throw refuse(c, "limits.device-records-burst", "must be at least 255 (a whole packet), got " + recordsBurst);
        }
        if (bytes > 0 && bytesBurst < maxFrameBytes) {
            throw refuse(c, "limits.device-bytes-burst", "must be at least " + typed(c, "limits.max-frame-bytes")
                    + ", " + maxFrameBytes + ", got " + bytesBurst);
        }
        return new DeviceRateSettings(records, recordsBurst, bytes, bytesBurst);
    }

    private static long heldBytes(Config c) {
        long bytes = longIn(c, "telemetry.backpressure.max-held-bytes", 0, Long.MAX_VALUE);
        return bytes > 0 ? bytes : Runtime.getRuntime().maxMemory() / 8;
    }

    private static int udpRecordsPerSecond(Config c, DecodeLimits decodeLimits) {
        int perSecond = intIn(c, "limits.max-udp-records-per-second", 0, 100_000_000);
        if (perSecond > 0 && perSecond < decodeLimits.maxRecords()) {
            // A packet's records are taken from the budget at once: a smaller one would refuse a full packet forever.
            throw refuse(c, "limits.max-udp-records-per-second", "must be 0 (no cap) or at least "
                    + typed(c, "limits.max-records-per-packet"));
        }
        return perSecond;
    }

    private static int acceptsPerSecond(Config c) {
        int perSecond = intIn(c, "limits.max-accepts-per-second", 0, 10_000_000);
        if (perSecond > 0 && perSecond < 10) {
            throw refuse(c, "limits.max-accepts-per-second", "must be 0 (no cap) or at least 10, got " + perSecond);
        }
        return perSecond;
    }

    private static String redisUrl(Config c, String url) {
        if (!url.startsWith("redis://") && !url.startsWith("rediss://") && !url.startsWith("redis-sentinel://")) {
            throw refuse(c, "redis.url", "must start with redis://, rediss:// or redis-sentinel://");
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

    private static TlsSettings tls(Config c) {
        int port = port(c, "tls.port");
        String cert = string(c, "tls.cert-file").trim();
        String key = string(c, "tls.key-file").trim();
        if (port > 0 && (cert.isEmpty() || key.isEmpty())) {
            throw refuse(c, "tls.port", "needs TLS_CERT_FILE (" + ROOT + ".tls.cert-file) and TLS_KEY_FILE ("
                    + ROOT + ".tls.key-file)");
        }
        TlsClientAuth clientAuth = TlsClientAuth.of(oneOf(c, "tls.client-auth", TlsClientAuth.NONE.label(),
                TlsClientAuth.OPTIONAL.label(), TlsClientAuth.REQUIRE.label()));
        String clientCa = string(c, "tls.client-ca-file").trim();
        if (clientAuth != TlsClientAuth.NONE && clientCa.isEmpty()) {
            throw refuse(c, "tls.client-auth", "needs TLS_CLIENT_CA_FILE (" + ROOT + ".tls.client-ca-file), the PEM"
                    + " certificates the devices' certificates chain to");
        }
        if (clientAuth != TlsClientAuth.NONE && port == 0) {
            throw refuse(c, "tls.client-auth", "needs TLS_PORT (" + ROOT + ".tls.port): client certificates are"
                    + " asked for on the TLS port only");
        }
        return new TlsSettings(port, cert, key, positive(c, "tls.handshake-timeout"), positive(c, "tls.reload-check"),
                clientAuth, clientCa);
    }

    private static StreamRetentionSettings retention(Config c) {
        RetentionMode mode = RetentionMode.of(oneOf(c, "telemetry.retention.mode", RetentionMode.ACKNOWLEDGED.label(),
                RetentionMode.DELIVERED.label()));
        Duration degraded = positive(c, "telemetry.health.lag-degraded-age");
        Duration unhealthy = positive(c, "telemetry.health.lag-unhealthy-age");
        if (unhealthy.compareTo(degraded) < 0) {
            throw refuse(c, "telemetry.health.lag-unhealthy-age", "must not be less than "
                    + typed(c, "telemetry.health.lag-degraded-age"));
        }
        long maxUnread = longIn(c, "telemetry.max-unread", 0, Long.MAX_VALUE);
        if (maxUnread > 0 && maxUnread < 100) {
            // Acknowledging resumes below 90 % of the cap: a tiny cap would stop ingestion on every pass.
            throw refuse(c, "telemetry.max-unread", "must be 0 (no cap) or at least 100");
        }
        Duration interval = positive(c, "telemetry.retention.interval");
        Duration maxHold = positive(c, "telemetry.backpressure.max-hold");
        if (maxHold.compareTo(interval.multipliedBy(2)) < 0) {
            // Held packets are released and expired by the retention pass.
            throw refuse(c, "telemetry.backpressure.max-hold", "must be at least twice "
                    + typed(c, "telemetry.retention.interval"));
        }
        return new StreamRetentionSettings(longIn(c, "telemetry.stream-max-len", 0, Long.MAX_VALUE), mode,
                notNegative(c, "telemetry.retention.min-age"), interval, maxUnread,
                fraction(c, "telemetry.backpressure.max-redis-memory"), maxHold,
                longIn(c, "telemetry.backpressure.max-held-records", 1, Long.MAX_VALUE),
                fraction(c, "telemetry.health.degraded-fraction"), degraded, unhealthy);
    }

    private static AdmissionMode admissionMode(Config c, String key) {
        return AdmissionMode.of(oneOf(c, key, AdmissionMode.OPEN.label(), AdmissionMode.ALLOW_LIST.label()));
    }

    private static String bindAddress(Config c, String key) {
        String address = string(c, key).trim();
        if (!io.netty.util.NetUtil.isValidIpV4Address(address) && !io.netty.util.NetUtil.isValidIpV6Address(address)
                && !"localhost".equals(address)) {
            throw refuse(c, key, "not an IP address");
        }
        return address;
    }
}
