package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.fraction;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.longIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.notNegative;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValueFactory;
import java.util.Locale;
import java.util.Map;
import org.fleetpipe.teltonika.janitor.JanitorSettings;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.ops.PurgeMode;

/**
 * Reads {@link ServerSettings}: environment variables (env-overrides.conf) over system properties
 * over application.conf over reference.conf. Any bad value becomes one {@link SettingsException}
 * naming the variable, the key and the value typed ({@link SettingValues}).
 */
public final class SettingsLoader {

    private static final String ROOT = SettingValues.ROOT;
    /** 32 characters: 128 bits as hex, far beyond guessing over HTTP. */
    static final int MIN_API_TOKEN_CHARS = HttpSettings.MIN_API_TOKEN_CHARS;
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
            Config settings = resolve(environment, overrides);
            RetiredSettings.refuseAny(environment, settings);
            return from(settings);
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
        // Read by logback before this (logFormat, logLevel); checked here so a typo stops the start.
        oneOf(c, "log.format", "text", "json");
        oneOf(c, "log.level", LOG_LEVELS);
        ListenerSettings listeners = ListenerSettings.from(c);
        return new ServerSettings(listeners, RedisSettings.from(c), InstanceSettings.from(c), DeviceSettings.from(c),
                TelemetrySettings.from(c), commands(c), ops(c), janitor(c), HttpSettings.from(c, listeners.bindAddress()),
                ShutdownSettings.from(c));
    }

    // The sections below are records of other packages and modules; only this package reads Typesafe Config.

    private static CommandSettings commands(Config c) {
        return new CommandSettings(positive(c, "commands.reply-timeout"), positive(c, "commands.default-ttl"),
                positive(c, "commands.max-ttl"), intIn(c, "commands.max-queue-per-device", 1, 100_000),
                intIn(c, "commands.max-command-bytes", 1, 65_536), positive(c, "commands.max-wait"),
                positive(c, "commands.retention"),
                intIn(c, "commands.dead-letter-max-entries", 1, 10_000_000),
                positive(c, "commands.sweep-interval"),
                intIn(c, "commands.max-attempts", 1, CommandSettings.MAX_ATTEMPTS_LIMIT),
                notNegative(c, "commands.quiet-gap"), bool(c, "commands.model-from-getver"));
    }

    private static OpsSettings ops(Config c) {
        // A degraded level above its unhealthy one is capped, not refused: a deployment that lowered
        // QUEUE_UNHEALTHY_STUCK below the newer QUEUE_DEGRADED_STUCK's default must still start.
        long unhealthyStuck = longIn(c, "ops.queue-health.unhealthy-stuck", 1, Long.MAX_VALUE);
        long degradedStuck = Math.min(unhealthyStuck, longIn(c, "ops.queue-health.degraded-stuck", 1, Long.MAX_VALUE));
        long deadLettersUnhealthy = longIn(c, "ops.queue-health.dead-letters-unhealthy-size", 1, Long.MAX_VALUE);
        long deadLettersDegraded = Math.min(deadLettersUnhealthy,
                longIn(c, "ops.queue-health.dead-letters-degraded-size", 1, Long.MAX_VALUE));
        return new OpsSettings(positive(c, "ops.queue-health.interval"), positive(c, "ops.queue-health.stuck-after"),
                longIn(c, "ops.queue-health.commands-degraded-size", 1, Long.MAX_VALUE),
                longIn(c, "ops.queue-health.commands-unhealthy-size", 1, Long.MAX_VALUE),
                deadLettersDegraded, deadLettersUnhealthy, unhealthyStuck, degradedStuck,
                notNegative(c, "ops.queue-health.in-flight-margin"), positive(c, "ops.queue-health.dead-letter-window"),
                positive(c, "dead-letters.ttl"), positive(c, "ops.purge.interval"),
                intIn(c, "ops.purge.orphan-scan-per-pass", 1, 10_000_000), bool(c, "dead-letters.enabled"),
                bool(c, "ops.queue-health.enabled"), PurgeMode.of(oneOf(c, "ops.purge.mode", PurgeMode.OFF.label(),
                        PurgeMode.DRY_RUN.label(), PurgeMode.LIVE.label())));
    }

    private static JanitorSettings janitor(Config c) {
        return new JanitorSettings(positive(c, "janitor.interval"), fraction(c, "janitor.jitter"),
                bool(c, "janitor.dry-run"), intIn(c, "janitor.scan-count", 1, 100_000));
    }
}
