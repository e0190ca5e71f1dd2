package org.fleetpipe.teltonika.server.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which environment variable sets which setting, read from env-overrides.conf: the one place that says it. */
public final class EnvNames {

    /** The classpath resource of the environment overrides. */
    public static final String RESOURCE = "env-overrides.conf";

    // One override per line, "key = ${?NAME}", inside the teltonika.server block.
    private static final Pattern OVERRIDE = Pattern.compile(
            "^\\s*([a-z0-9.-]+)\\s*=\\s*\\$\\{\\?([A-Z0-9_]+)}\\s*$", Pattern.MULTILINE);

    private static final Map<String, String> BY_KEY = parse(read());

    private EnvNames() {
    }

    /** The variable that sets {@code key} (a path under teltonika.server), if any. */
    public static Optional<String> of(String key) {
        return Optional.ofNullable(BY_KEY.get(key));
    }

    /** Setting key → variable, in the file's order. */
    public static Map<String, String> all() {
        return BY_KEY;
    }

    /** Setting key → variable of an env-overrides.conf text. */
    public static Map<String, String> parse(String text) {
        Map<String, String> byKey = new LinkedHashMap<>();
        Matcher m = OVERRIDE.matcher(text);
        while (m.find()) {
            byKey.put(m.group(1), m.group(2));
        }
        return Collections.unmodifiableMap(byKey);
    }

    private static String read() {
        try (InputStream in = EnvNames.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(RESOURCE, e);
        }
    }
}
