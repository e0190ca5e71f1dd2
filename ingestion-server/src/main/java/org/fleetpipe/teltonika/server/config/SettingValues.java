package org.fleetpipe.teltonika.server.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one setting as a typed value, and refuses a bad one with a single line that names the
 * environment variable, the key and what was typed: {@code TCP_PORT=abc (teltonika.server.tcp-port):
 * must be a whole number in 0..65535}.
 */
final class SettingValues {

    static final String ROOT = "teltonika.server";
    /** The origin Typesafe Config gives values taken from the process environment. */
    static final String ENV_ORIGIN = "env variables";

    /** Never echoed: a URL may hold a password. */
    private static final Set<String> SECRETS = Set.of("redis.url", "api-token", "api-token-read");
    private static final Pattern BARE_NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)");

    private SettingValues() {
    }

    static int port(Config c, String key) {
        return intIn(c, key, 0, 65535);
    }

    static int intIn(Config c, String key, int min, int max) {
        return (int) longIn(c, key, min, max);
    }

    static long longIn(Config c, String key, long min, long max) {
        Object raw = value(c, key).unwrapped();
        long v;
        try {
            BigDecimal number = new BigDecimal(String.valueOf(raw).trim());
            v = number.longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw refuse(c, key, "must be a whole number in " + min + ".." + max);
        }
        if (v < min || v > max) {
            throw refuse(c, key, "must be a whole number in " + min + ".." + max);
        }
        return v;
    }

    static double fraction(Config c, String key) {
        double v;
        try {
            v = Double.parseDouble(String.valueOf(value(c, key).unwrapped()).trim());
        } catch (NumberFormatException e) {
            throw refuse(c, key, "must be a number in 0..1");
        }
        if (!(v >= 0 && v <= 1)) {
            throw refuse(c, key, "must be a number in 0..1");
        }
        return v;
    }

    static boolean bool(Config c, String key) {
        String text = String.valueOf(value(c, key).unwrapped()).trim().toLowerCase(Locale.ROOT);
        return switch (text) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw refuse(c, key, "must be true or false");
        };
    }

    static String string(Config c, String key) {
        ConfigValue v = value(c, key);
        if (v.valueType() == ConfigValueType.OBJECT || v.valueType() == ConfigValueType.LIST) {
            throw refuse(c, key, "must be a single value");
        }
        return String.valueOf(v.unwrapped());
    }

    /** One of {@code allowed}, in any case; returned in lower case. */
    static String oneOf(Config c, String key, String... allowed) {
        String text = string(c, key).trim().toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(text)) {
                return a;
            }
        }
        String choices = allowed.length == 2 ? allowed[0] + " or " + allowed[1] : "one of " + String.join(", ", allowed);
        throw refuse(c, key, "must be " + choices + " (any case)");
    }

    /** At least 1 ms: timers here work in whole milliseconds, so 500us would become 0 and fail later, less clearly. */
    static Duration positive(Config c, String key) {
        Duration d = duration(c, key);
        if (d.toMillis() < 1) {
            throw refuse(c, key, "must be at least 1 ms");
        }
        return d;
    }

    static Duration notNegative(Config c, String key) {
        Duration d = duration(c, key);
        if (d.isNegative()) {
            throw refuse(c, key, "must not be negative");
        }
        return d;
    }

    /**
     * A duration with a unit ({@code 10s}, {@code 500ms}, {@code 5m}). A bare number is milliseconds
     * only for a variable whose name says so ({@code ..._MS}); elsewhere {@code SHUTDOWN_GRACE=10}
     * would silently mean 10 ms, so it is refused. A bare 0 is 0 in any unit.
     */
    static Duration duration(Config c, String key) {
        String text = String.valueOf(value(c, key).unwrapped()).trim();
        if (BARE_NUMBER.matcher(text).matches() && !inMilliseconds(key) && new BigDecimal(text).signum() != 0) {
            throw refuse(c, key, "needs a unit, such as " + text + "s or " + text + "ms (a bare number is"
                    + " milliseconds only for variables ending in _MS)");
        }
        try {
            return c.getDuration(key);
        } catch (ConfigException e) {
            throw refuse(c, key, "must be a duration, such as 10s, 500ms or 5m");
        }
    }

    /** A refusal of the value at {@code key}: what was typed, where, and {@code problem}. */
    static SettingsException refuse(Config c, String key, String problem) {
        return new SettingsException(typed(c, key) + ": " + problem);
    }

    /**
     * {@code TCP_PORT=abc (teltonika.server.tcp-port)} for a value from the environment, else
     * {@code teltonika.server.tcp-port=abc (env TCP_PORT)}.
     */
    static String typed(Config c, String key) {
        String env = EnvNames.of(key).orElse(null);
        String path = ROOT + "." + key;
        if (!c.hasPath(key)) {
            return env == null ? path : env + " (" + path + ")";
        }
        ConfigValue v = c.getValue(key);
        String shown = SECRETS.contains(key) ? "<hidden>" : render(v.unwrapped());
        if (env != null && ENV_ORIGIN.equals(v.origin().description())) {
            return env + "=" + shown + " (" + path + ")";
        }
        return path + "=" + shown + (env == null ? "" : " (env " + env + ")");
    }

    private static ConfigValue value(Config c, String key) {
        if (!c.hasPath(key)) {
            throw refuse(c, key, "is missing");
        }
        return c.getValue(key);
    }

    private static boolean inMilliseconds(String key) {
        return EnvNames.of(key).map(name -> name.endsWith("_MS")).orElse(false);
    }

    private static String render(Object raw) {
        String text = String.valueOf(raw).replaceAll("[\\r\\n]+", " ");
        return text.isBlank() || !text.equals(text.strip()) || text.contains(" ") ? '"' + text + '"' : text;
    }
}
