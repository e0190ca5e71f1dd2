package org.fleetpipe.teltonika.deploy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A redis.conf or sentinel.conf as Redis reads it: one directive per line, whole-line comments,
 * arguments split on spaces ({@code ""} is an empty argument). Enough for the files in this tree,
 * which use no other quoting.
 */
final class RedisConf {

    private final List<List<String>> lines = new ArrayList<>();

    RedisConf(String text) {
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            List<String> args = new ArrayList<>();
            for (String arg : line.split("\\s+")) {
                args.add("\"\"".equals(arg) ? "" : arg);
            }
            lines.add(args);
        }
    }

    /** Directive lines in file order. */
    List<List<String>> lines() {
        return lines;
    }

    /** Position of the first line starting with these words (case-insensitive), or -1. */
    int indexOf(String... words) {
        for (int i = 0; i < lines.size(); i++) {
            if (startsWith(lines.get(i), words)) {
                return i;
            }
        }
        return -1;
    }

    /** The first line starting with these words, whole. */
    Optional<List<String>> line(String... words) {
        int i = indexOf(words);
        return i < 0 ? Optional.empty() : Optional.of(lines.get(i));
    }

    /** The single argument after these words, e.g. {@code value("appendonly")} is "yes". */
    String value(String... words) {
        List<String> line = line(words).orElseThrow(() -> new AssertionError("no '" + String.join(" ", words) + "' line"));
        if (line.size() != words.length + 1) {
            throw new AssertionError("'" + String.join(" ", words) + "' takes one argument: " + line);
        }
        return line.get(words.length);
    }

    private static boolean startsWith(List<String> line, String... words) {
        if (line.size() < words.length) {
            return false;
        }
        return Arrays.equals(line.subList(0, words.length).stream().map(String::toLowerCase).toArray(),
                Arrays.stream(words).map(String::toLowerCase).toArray());
    }
}
