package org.fleetpipe.teltonika.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** OPERATIONS.md's table of Lua scripts names exactly the scripts the modules' resources hold. Read from the sources. */
class ScriptsDocumentationTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern ROW = Pattern.compile("(?m)^\\| `([^`]+\\.lua)` \\|");

    @Test
    void operationsScriptsTable_whenRead_thenListsEveryLuaResourceAndNothingElse() throws IOException {
        Set<String> documented = new TreeSet<>();
        Matcher m = ROW.matcher(Files.readString(ROOT.resolve("OPERATIONS.md")));
        while (m.find()) {
            documented.add(m.group(1));
        }

        assertThat(documented).as("script rows in OPERATIONS.md").isEqualTo(resources());
    }

    /** Every *.lua under a module's src/main/resources, by its path there (e.g. command/take.lua). */
    private static Set<String> resources() throws IOException {
        Set<String> found = new TreeSet<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(Files::isDirectory).toList()) {
                Path resources = module.resolve("src").resolve("main").resolve("resources");
                if (!Files.isDirectory(resources)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(resources)) {
                    files.filter(f -> f.toString().endsWith(".lua")).forEach(f ->
                            found.add(resources.relativize(f).toString().replace('\\', '/')));
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        assertThat(found).as("the scripts found (run from the module directory)").isNotEmpty();
        return found;
    }
}
