package org.fleetpipe.teltonika.payload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * IO element names, multipliers and units per device model: a lookup of (model, id) to an
 * {@link IoElement}. The bundled one ({@link #load()}) is {@code io-dictionary.tsv}, generated from
 * Teltonika's per-model table (payload/README.md). Model names match whatever their case.
 */
public final class IoDictionary {

    /** Where the bundled dictionary is, beside this class. */
    static final String RESOURCE = "io-dictionary.tsv";

    private static final IoDictionary EMPTY = new IoDictionary(Map.of());

    /** Loaded on first use, once per class loader. */
    private static final class Bundled {
        static final IoDictionary DICTIONARY = read();

        private static IoDictionary read() {
            try (InputStream in = IoDictionary.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(RESOURCE + " is not on the class path");
                }
                return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Upper-case model to id to element; immutable. */
    private final Map<String, Map<Integer, IoElement>> models;

    private IoDictionary(Map<String, Map<Integer, IoElement>> models) {
        this.models = models;
    }

    /** A dictionary that knows no model: payloads carry raw ids only. */
    public static IoDictionary empty() {
        return EMPTY;
    }

    /** The bundled dictionary, read once. */
    public static IoDictionary load() {
        return Bundled.DICTIONARY;
    }

    /** A dictionary of the lines of the bundled format (tab-separated; {@code #} starts a comment). */
    static IoDictionary parse(List<String> lines) {
        Map<String, Map<Integer, IoElement>> models = new HashMap<>();
        for (String line : lines) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 7) {
                throw new IllegalArgumentException("not 7 fields: " + line);
            }
            int id = Integer.parseInt(f[0]);
            IoElement element = new IoElement(id, f[1], IoElement.Type.valueOf(f[2].toUpperCase(Locale.ROOT)),
                    Integer.parseInt(f[3]), new BigDecimal(f[4]), f[5].isEmpty() ? null : f[5]);
            for (String model : f[6].split(" ")) {
                IoElement before = models.computeIfAbsent(model.toUpperCase(Locale.ROOT), m -> new HashMap<>())
                        .put(id, element);
                if (before != null) {
                    throw new IllegalArgumentException("id " + id + " twice for " + model);
                }
            }
        }
        Map<String, Map<Integer, IoElement>> frozen = new HashMap<>();
        models.forEach((model, ids) -> frozen.put(model, Map.copyOf(ids)));
        return new IoDictionary(Map.copyOf(frozen));
    }

    /** Whether the dictionary has the model (any case). */
    public boolean knows(String model) {
        return model != null && models.containsKey(model.toUpperCase(Locale.ROOT));
    }

    /** What {@code id} means on {@code model}, or null when the dictionary does not say. */
    public IoElement element(String model, int id) {
        Map<Integer, IoElement> ids = model == null ? null : models.get(model.toUpperCase(Locale.ROOT));
        return ids == null ? null : ids.get(id);
    }

    /** The models the dictionary knows, upper case. */
    public List<String> models() {
        return new ArrayList<>(models.keySet());
    }

    /** The elements {@code model} has (any case), by id, or null when the dictionary does not know it. */
    Map<Integer, IoElement> elementsOf(String model) {
        return models.get(model.toUpperCase(Locale.ROOT));
    }
}
