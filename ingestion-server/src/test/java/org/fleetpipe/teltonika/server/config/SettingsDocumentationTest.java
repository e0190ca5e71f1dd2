package org.fleetpipe.teltonika.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every setting of reference.conf has an environment variable (env-overrides.conf) and a row in the
 * README's settings table that names both, and the three files agree. Read from the sources.
 */
class SettingsDocumentationTest {

    private static final Path RESOURCES = Path.of("src", "main", "resources");
    private static final Path README = Path.of("..", "README.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private static final Set<String> SETTINGS = ConfigFactory.parseFile(RESOURCES.resolve("reference.conf").toFile())
            .getConfig("teltonika.server").entrySet().stream().map(Map.Entry::getKey)
            .collect(Collectors.toCollection(TreeSet::new));
    private static final Map<String, String> ENV_BY_KEY = EnvNames.parse(read(RESOURCES.resolve(EnvNames.RESOURCE)));

    @Test
    void envOverrides_whenParsed_thenEveryLineWithAVariableIsUnderstood() {
        // Guards the parser: a line it cannot read would hide a setting from the checks below.
        long variables = Pattern.compile("\\$\\{\\?").matcher(read(RESOURCES.resolve(EnvNames.RESOURCE))).results()
                .count();

        assertThat(ENV_BY_KEY).hasSize((int) variables).containsEntry("tcp-port", "TCP_PORT");
        assertThat(SETTINGS).contains("tcp-port", "heartbeat.ttl", "log.format");
        assertThat(EnvNames.all()).as("the loader reads the same file").isEqualTo(ENV_BY_KEY);
    }

    @Test
    void referenceConf_whenEverySettingListed_thenEachHasAnEnvironmentVariable() {
        Set<String> without = new TreeSet<>(SETTINGS);
        without.removeAll(ENV_BY_KEY.keySet());

        assertThat(without).as("settings of reference.conf without a ${?VARIABLE} in env-overrides.conf").isEmpty();
    }

    @Test
    void envOverrides_whenEveryKeyListed_thenEachIsASettingAndEachVariableUsedOnce() {
        Set<String> unknown = new TreeSet<>(ENV_BY_KEY.keySet());
        unknown.removeAll(SETTINGS);

        assertThat(unknown).as("env-overrides.conf keys that reference.conf does not have (typos?)").isEmpty();
        assertThat(ENV_BY_KEY.values()).doesNotHaveDuplicates();
        assertThat(ENV_BY_KEY.values()).allMatch(v -> v.matches("[A-Z][A-Z0-9_]*"));
    }

    @Test
    void readmeSettingsTable_whenParsed_thenHasARowForEveryVariableNamingItsSetting() {
        Map<String, String> documented = readmeRows();
        Map<String, String> missing = new LinkedHashMap<>();
        Map<String, String> wrong = new LinkedHashMap<>();
        ENV_BY_KEY.forEach((key, variable) -> {
            if (!documented.containsKey(variable)) {
                missing.put(variable, key);
            } else if (!documented.get(variable).equals(key)) {
                wrong.put(variable, "README says " + documented.get(variable) + ", env-overrides.conf says " + key);
            }
        });

        assertThat(documented).as("rows parsed (guards the parser)").containsEntry("TCP_PORT", "tcp-port")
                .containsEntry("TLS_KEY_FILE", "tls.key-file").hasSizeGreaterThan(40);
        assertThat(missing).as("variables without a README row (variable -> setting)").isEmpty();
        assertThat(wrong).as("README rows naming another setting").isEmpty();
        Set<String> unknown = new TreeSet<>(documented.keySet());
        unknown.removeAll(ENV_BY_KEY.values());
        assertThat(unknown).as("README rows for variables the server does not read").isEmpty();
    }

    /** Variable → setting, from the rows of the table under "## Settings" (a row may list several pairs). */
    private static Map<String, String> readmeRows() {
        String readme = read(README);
        int start = readme.indexOf("\n## Settings");
        int end = readme.indexOf("\n## ", start + 1);
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : readme.substring(start, end).split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            List<String> variables = code(cells[1]);
            List<String> keys = code(cells[2]);
            assertThat(keys).as("one setting per variable in: %s", line).hasSameSizeAs(variables);
            for (int i = 0; i < variables.size(); i++) {
                rows.put(variables.get(i), keys.get(i));
            }
        }
        return rows;
    }

    private static List<String> code(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = CODE.matcher(cell);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(p.toString(), e);
        }
    }
}
