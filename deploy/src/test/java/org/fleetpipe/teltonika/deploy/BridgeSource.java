package org.fleetpipe.teltonika.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.cli.DurationText;

/**
 * What the bridge reads, taken from its own sources in the repository: the environment variables
 * of BridgeCommand's option defaults ({@code ${env:NAME}} or {@code ${env:NAME:-default}}), those
 * it reads from the environment directly ({@code environment.get("NAME")}: the secrets), those its
 * logback.xml reads, and the paths its HTTP server answers.
 */
final class BridgeSource {

    private static final Path MAIN = Path.of("bridge/src/main");
    private static final Path COMMAND = MAIN.resolve("java/org/fleetpipe/teltonika/bridge/BridgeCommand.java");
    private static final Path HTTP_SERVER = MAIN.resolve("java/org/fleetpipe/teltonika/bridge/ops/BridgeHttpServer.java");
    private static final Path LOGBACK = MAIN.resolve("resources/logback.xml");

    private static final Pattern OPTION_ENV = Pattern.compile("\\$\\{env:([A-Z0-9_]+)(?::-([^}]*))?}");
    private static final Pattern DIRECT_ENV = Pattern.compile("environment\\.get\\(\"([A-Z0-9_]+)\"\\)");
    private static final Pattern LOGBACK_VAR = Pattern.compile("\\$\\{([A-Za-z0-9_]+):-");
    private static final Pattern CONTEXT = Pattern.compile("createContext\\(\"([^\"]+)\"");

    /** env var name → its default in BridgeCommand (null: none, or read directly). */
    private final Map<String, String> envDefaults = new LinkedHashMap<>();
    private final Set<String> directEnv = new LinkedHashSet<>();
    private final Set<String> httpPaths = new LinkedHashSet<>();

    BridgeSource(Path repo) {
        String command = read(repo.resolve(COMMAND));
        Matcher option = OPTION_ENV.matcher(command);
        while (option.find()) {
            envDefaults.put(option.group(1), option.group(2));
        }
        Matcher direct = DIRECT_ENV.matcher(command);
        while (direct.find()) {
            directEnv.add(direct.group(1));
            envDefaults.putIfAbsent(direct.group(1), null);
        }
        Matcher logback = LOGBACK_VAR.matcher(read(repo.resolve(LOGBACK)));
        while (logback.find()) {
            envDefaults.putIfAbsent(logback.group(1), null);
        }
        Matcher context = CONTEXT.matcher(read(repo.resolve(HTTP_SERVER)));
        while (context.find()) {
            httpPaths.add(context.group(1));
        }
    }

    /** Every environment variable the bridge (or its logging) reads. */
    Set<String> envNames() {
        return envDefaults.keySet();
    }

    /** The variables read with {@code environment.get}: no option, only the environment (secrets). */
    Set<String> directEnv() {
        return directEnv;
    }

    /** The value the bridge sees: the environment's, else BridgeCommand's default. */
    String value(Map<String, String> env, String name) {
        if (!envDefaults.containsKey(name)) {
            throw new IllegalArgumentException(name + " is not read by the bridge");
        }
        return env.containsKey(name) ? env.get(name) : envDefaults.get(name);
    }

    Set<String> httpPaths() {
        return httpPaths;
    }

    /** A duration as the bridge parses it: the tools' one grammar, cli-support's DurationText. */
    static Duration duration(String text) {
        return DurationText.parse(text);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }
}
