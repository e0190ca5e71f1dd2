package org.fleetpipe.teltonika.server.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.janitor.JanitorSettings;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.ops.OpsSettings;

/**
 * Reads {@link ServerSettings}: environment variables (env-overrides.conf) over system properties
 * over application.conf over reference.conf. Any bad value becomes one {@link SettingsException}
 * naming the key.
 */
public final class SettingsLoader {

    private static final String ROOT = "teltonika.server";

    private SettingsLoader() {
    }

    /** Settings from the process environment and the classpath. */
    public static ServerSettings load() {
        return load(Map.of());
    }

    /** As {@link #load()}, with {@code overrides} (paths under {@code teltonika.server}) on top; for tests. */
    public static ServerSettings load(Map<String, ?> overrides) {
        try {
            ConfigFactory.invalidateCaches();
            Config config = ConfigFactory.parseMap(prefixed(overrides), "test overrides")
                    .withFallback(ConfigFactory.parseResourcesAnySyntax("env-overrides"))
                    .withFallback(ConfigFactory.systemProperties())
                    .withFallback(ConfigFactory.defaultApplication())
                    .withFallback(ConfigFactory.defaultReference())
                    .resolve(ConfigResolveOptions.defaults());
            return from(config.getConfig(ROOT));
        } catch (ConfigException e) {
            throw new SettingsException(e.getMessage(), e);
        }
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
        String url = c.getString("redis.url").trim();
        String token = c.getString("api-token").trim();
        Duration ttl = positive(c, "heartbeat.ttl");
        Duration interval = positive(c, "heartbeat.interval");
        if (interval.multipliedBy(2).compareTo(ttl) > 0) {
            throw new SettingsException(ROOT + ".heartbeat.interval (HEARTBEAT_INTERVAL_MS): " + interval.toMillis()
                    + " ms must be at most half of heartbeat.ttl (HEARTBEAT_TTL_MS) " + ttl.toMillis() + " ms");
        }
        ServerSettings s = new ServerSettings(
                bindAddress(c.getString("bind-address")),
                port(c, "tcp-port"),
                port(c, "udp-port"),
                port(c, "http-port"),
                tls(c),
                url.isEmpty() ? Optional.empty() : Optional.of(redisUrl(url)),
                positive(c, "redis.command-timeout"),
                c.getString("redis.namespace"),
                port(c, "redis.embedded-port"),
                c.getString("instance-id-prefix"),
                token.isEmpty() ? Optional.empty() : Optional.of(token),
                ttl,
                interval,
                intIn(c, "registry.max-known-instances", 10, 10_000_000),
                positive(c, "registry.device-info-ttl"),
                new JanitorSettings(positive(c, "janitor.interval"), fraction(c, "janitor.jitter"),
                        c.getBoolean("janitor.dry-run"), intIn(c, "janitor.scan-count", 1, 100_000)),
                new CommandSettings(positive(c, "commands.reply-timeout"), positive(c, "commands.default-ttl"),
                        positive(c, "commands.max-ttl"), intIn(c, "commands.max-queue-per-device", 1, 100_000),
                        intIn(c, "commands.max-command-bytes", 1, 65_536), positive(c, "commands.max-wait"),
                        positive(c, "commands.retention"),
                        intIn(c, "commands.dead-letter-max-entries", 1, 10_000_000),
                        positive(c, "commands.sweep-interval")),
                new OpsSettings(positive(c, "ops.queue-health.interval"), positive(c, "ops.queue-health.stuck-after"),
                        longIn(c, "ops.queue-health.commands-degraded-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.commands-unhealthy-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.dead-letters-degraded-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.dead-letters-unhealthy-size", 1, Long.MAX_VALUE),
                        longIn(c, "ops.queue-health.unhealthy-stuck", 1, Long.MAX_VALUE),
                        positive(c, "dead-letters.ttl"), positive(c, "ops.purge.interval"),
                        intIn(c, "ops.purge.orphan-scan-per-pass", 1, 10_000_000)),
                c.getBoolean("imei-luhn-check"),
                admissionMode(c.getString("admission.mode")),
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
                longIn(c, "telemetry.stream-max-len", 0, Long.MAX_VALUE),
                notNegative(c, "telemetry.dedup-window"),
                intIn(c, "telemetry.ack-replicas", 0, 100),
                positive(c, "telemetry.ack-replicas-timeout"),
                intIn(c, "telemetry.dedup-per-device", 1, 100_000),
                intIn(c, "dead-letters.max-entries", 1, 10_000_000),
                intIn(c, "dead-letters.max-frame-bytes", 16, 16 * 1024 * 1024),
                positive(c, "shutdown.grace"),
                c.getDuration("shutdown.drain-window"),
                intIn(c, "io-threads", 0, 1024),
                hostileClientLimits(c));
        return s;
    }

    private static HostileClientLimits hostileClientLimits(Config c) {
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
                intIn(c, "limits.max-device-message-text-bytes", 16, 16 * 1024 * 1024));
    }

    private static String redisUrl(String url) {
        if (!url.startsWith("redis://") && !url.startsWith("rediss://") && !url.startsWith("redis-sentinel://")) {
            throw new SettingsException(ROOT + ".redis.url (REDIS_URL): must start with redis://, rediss:// or "
                    + "redis-sentinel://");
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
            // Never echo the URL: it may hold a password.
            throw new SettingsException(ROOT + ".redis.url (REDIS_URL): not a valid Redis URL (host and port?)");
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
        String cert = c.getString("tls.cert-file").trim();
        String key = c.getString("tls.key-file").trim();
        if (port > 0 && (cert.isEmpty() || key.isEmpty())) {
            throw new SettingsException(ROOT + ".tls.port (TLS_PORT): " + port + " needs tls.cert-file (TLS_CERT_FILE) "
                    + "and tls.key-file (TLS_KEY_FILE)");
        }
        return new TlsSettings(port, cert, key, positive(c, "tls.handshake-timeout"), positive(c, "tls.reload-check"));
    }

    private static AdmissionMode admissionMode(String text) {
        AdmissionMode mode = AdmissionMode.of(text);
        if (mode == null) {
            throw new SettingsException(ROOT + ".admission.mode (DEVICE_ADMISSION): must be open or allow-list, got "
                    + text);
        }
        return mode;
    }

    private static String bindAddress(String address) {
        if (!io.netty.util.NetUtil.isValidIpV4Address(address) && !io.netty.util.NetUtil.isValidIpV6Address(address)
                && !"localhost".equals(address)) {
            throw new SettingsException(ROOT + ".bind-address (BIND_ADDRESS): not an IP address: " + address);
        }
        return address;
    }

    /** 0 binds any free port (tests); for udp-port it turns UDP off. */
    private static int port(Config c, String key) {
        return intIn(c, key, 0, 65535);
    }

    private static int intIn(Config c, String key, int min, int max) {
        long v = longIn(c, key, min, max);
        return (int) v;
    }

    private static long longIn(Config c, String key, long min, long max) {
        long v = c.getLong(key);
        if (v < min || v > max) {
            throw new SettingsException(ROOT + "." + key + ": " + v + " is outside " + min + ".." + max);
        }
        return v;
    }

    private static double fraction(Config c, String key) {
        double v = c.getDouble(key);
        if (v < 0 || v > 1) {
            throw new SettingsException(ROOT + "." + key + ": " + v + " is outside 0..1");
        }
        return v;
    }

    private static Duration notNegative(Config c, String key) {
        Duration d = c.getDuration(key);
        if (d.isNegative()) {
            throw new SettingsException(ROOT + "." + key + ": must not be negative, got " + d);
        }
        return d;
    }

    private static Duration positive(Config c, String key) {
        Duration d = c.getDuration(key);
        // Timers here work in whole milliseconds: 500us would become 0 and fail later, less clearly.
        if (d.toMillis() < 1) {
            throw new SettingsException(ROOT + "." + key + ": must be at least 1 ms, got " + d);
        }
        return d;
    }
}
