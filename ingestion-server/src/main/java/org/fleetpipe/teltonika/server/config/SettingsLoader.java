package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValueFactory;
import java.util.Locale;
import java.util.Map;

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

    /** Each section reads its own keys; only the log settings, read by logback first, are checked here. */
    static ServerSettings from(Config c) {
        // Read by logback before this (logFormat, logLevel); checked here so a typo stops the start.
        oneOf(c, "log.format", "text", "json");
        oneOf(c, "log.level", LOG_LEVELS);
        return new ServerSettings(ListenerSettings.from(c), RedisSettings.from(c), InstanceSettings.from(c),
                DeviceSettings.from(c), TelemetrySettings.from(c), CommandsSection.from(c), QueueHealthSection.from(c),
                OpsSection.from(c), JanitorSection.from(c), HttpSettings.from(c), ShutdownSettings.from(c));
    }
}
