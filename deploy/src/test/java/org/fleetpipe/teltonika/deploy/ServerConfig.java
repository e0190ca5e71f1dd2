package org.fleetpipe.teltonika.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigResolveOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the server reads, taken from its own sources in the repository: the env variables of
 * {@code env-overrides.conf} ({@code key = ${?NAME}}), those its {@code logback.xml} reads
 * ({@code ${NAME:-default}}), and the defaults of {@code reference.conf}.
 */
final class ServerConfig {

    static final String ROOT = "teltonika.server";

    private static final Pattern OVERRIDE = Pattern.compile("^\\s*([a-z0-9.-]+)\\s*=\\s*\\$\\{\\?([A-Za-z0-9_]+)}\\s*$",
            Pattern.MULTILINE);
    private static final Pattern LOGBACK_VAR = Pattern.compile("\\$\\{([A-Za-z0-9_]+):-");

    private final Path resources;
    /** env var name → setting path under teltonika.server (logback's variables map to "(logback)"). */
    private final Map<String, String> envNames = new LinkedHashMap<>();

    ServerConfig(Path serverResources) {
        this.resources = serverResources;
        Matcher m = OVERRIDE.matcher(read(serverResources.resolve("env-overrides.conf")));
        while (m.find()) {
            envNames.put(m.group(2), m.group(1));
        }
        Matcher l = LOGBACK_VAR.matcher(read(serverResources.resolve("logback.xml")));
        while (l.find()) {
            envNames.put(l.group(1), "(logback)");
        }
    }

    /** Every environment variable the server (or its logging) reads. */
    Map<String, String> envNames() {
        return envNames;
    }

    /**
     * The server's settings (under teltonika.server) with {@code env} as the environment: the
     * same layering as the server's SettingsLoader, env-overrides.conf over reference.conf.
     */
    Config resolve(Map<String, String> env) {
        ConfigParseOptions strict = ConfigParseOptions.defaults().setAllowMissing(false);
        Config overrides = ConfigFactory.parseFile(resources.resolve("env-overrides.conf").toFile(), strict);
        Config reference = ConfigFactory.parseFile(resources.resolve("reference.conf").toFile(), strict);
        // The variables sit at the root, where ${?NAME} looks them up; noSystem() keeps the test
        // machine's own environment out.
        return overrides.withFallback(reference)
                .withFallback(ConfigFactory.parseMap(env, "manifest environment"))
                .resolve(ConfigResolveOptions.noSystem())
                .getConfig(ROOT);
    }

    /**
     * The range the server's settings accept for an integer setting ({@code intIn(c, "path", min, max)}),
     * read from the config package's sources (each section bounds its own fields): a value outside it
     * stops the server at start.
     */
    long[] intBounds(String setting) {
        Path config = resources.getParent().resolve("java/org/fleetpipe/teltonika/server/config");
        Pattern bound = Pattern.compile("intIn\\(c, \"" + Pattern.quote(setting) + "\", ([0-9_]+), ([0-9_]+)\\)");
        try (Stream<Path> sources = Files.list(config)) {
            for (Path source : sources.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                Matcher m = bound.matcher(read(source));
                if (m.find()) {
                    return new long[] {Long.parseLong(m.group(1).replace("_", "")),
                            Long.parseLong(m.group(2).replace("_", ""))};
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(config.toString(), e);
        }
        throw new IllegalStateException(config + " has no intIn(c, \"" + setting + "\", min, max)");
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(p.toString(), e);
        }
    }
}
