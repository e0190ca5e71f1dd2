package org.fleetpipe.teltonika.payload;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Builds the bundled IO dictionary ({@code io-dictionary.tsv}) from the shared per-model table
 * ({@code io_elements.csv}), cleaning it on the way (payload/README.md says what and why). Run from
 * the repository root, no build needed:
 *
 * <pre>java payload/src/test/java/org/fleetpipe/teltonika/payload/IoDictionaryGenerator.java \
 *     /work/shared/io-elements/io_elements.csv \
 *     payload/src/main/resources/org/fleetpipe/teltonika/payload/io-dictionary.tsv</pre>
 *
 * It prints what it cleaned to stderr. JDK only, so it runs as a single source file.
 */
public final class IoDictionaryGenerator {

    /** Units spelled more than one way in the table, to the one spelling the dictionary uses. */
    static final Map<String, String> UNIT_SPELLINGS = Map.ofEntries(
            Map.entry("min.", "min"), Map.entry("sec", "s"), Map.entry("km/H", "km/h"), Map.entry("˚C", "°C"),
            Map.entry("RPM", "rpm"), Map.entry("Kg", "kg"), Map.entry("L/h", "l/h"), Map.entry("km/L", "km/l"),
            Map.entry("kW*h", "kWh"), Map.entry("Degrees °", "°"));
    /** Texts of the Units column that are no unit (a format, a code, an either-or): left out. */
    static final Set<String> NOT_UNITS = Set.of("Timestamp", "enum\n(bit field)", "Bit encoded", "SA",
            "kvants or ltr", "l or ml", "G or rad", "G|rad");
    /** Units a raw integer is commonly sent in: a multiplier of 0 beside them means 1 (the value is in them). */
    static final Set<String> RAW_UNITS = Set.of("mV", "mm");

    /** One cleaned row: an id's meaning on the models listed. */
    record Element(int id, String name, String type, int bytes, String multiplier, String unit) {
        String line(Set<String> models) {
            return id + "\t" + name + "\t" + type + "\t" + bytes + "\t" + multiplier + "\t" + unit + "\t"
                    + String.join(" ", models);
        }
    }

    /** A row of the table as read, with its models. */
    record Row(int line, int id, String name, String numBytes, String type, String min, String max,
               String multiplier, String units, List<String> models) {
    }

    private final List<String> report = new ArrayList<>();

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: IoDictionaryGenerator <io_elements.csv> <io-dictionary.tsv>");
            System.exit(2);
        }
        IoDictionaryGenerator generator = new IoDictionaryGenerator();
        String out = generator.generate(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8));
        Files.writeString(Path.of(args[1]), out, StandardCharsets.UTF_8);
        generator.report.forEach(System.err::println);
    }

    /** What was cleaned, one line each. */
    List<String> report() {
        return report;
    }

    /** The dictionary's text from the table's. */
    String generate(String csv) {
        List<Row> rows = rows(Csv.parse(csv));
        Map<String, Map<Integer, Element>> perModel = new TreeMap<>();
        int duplicates = 0;
        for (Row row : rows) {
            Element element = clean(row, rows);
            for (String model : row.models()) {
                Element before = perModel.computeIfAbsent(model, m -> new TreeMap<>()).putIfAbsent(row.id(), element);
                if (before != null) {
                    duplicates++;
                    note("duplicate: id " + row.id() + " on " + model + " again at line " + row.line()
                            + (before.equals(element) ? " (same meaning)" : " (" + row.name() + "; the first row kept)"));
                }
            }
        }
        note("duplicate (model, id) rows dropped: " + duplicates);
        Map<Element, Set<String>> grouped = new LinkedHashMap<>();
        perModel.forEach((model, elements) -> renameCollisions(model, elements).values()
                .forEach(e -> grouped.computeIfAbsent(e, k -> new TreeSet<>()).add(model)));
        List<String> lines = new ArrayList<>();
        grouped.forEach((element, models) -> lines.add(element.line(models)));
        lines.sort((a, b) -> {
            int byId = Integer.compare(Integer.parseInt(a.substring(0, a.indexOf('\t'))),
                    Integer.parseInt(b.substring(0, b.indexOf('\t'))));
            return byId != 0 ? byId : a.compareTo(b);
        });
        StringBuilder out = new StringBuilder()
                .append("# Teltonika IO elements per device model, cleaned (payload/README.md; IoDictionaryGenerator).\n")
                .append("# Derived from alim-zanibekov/teltonika tools/io_elements_dump.csv at commit\n")
                .append("# 1465a609effa2716b015afb3ebfe279213663b46, MIT licence (io-dictionary.LICENSE beside this file):\n")
                .append("# Copyright (c) 2022 Alim Zanibekov.\n")
                .append("# id, snake_case name, type (unsigned signed hex ascii), bytes (0 = variable length),\n")
                .append("# multiplier, unit (empty: none), models (space-separated), tab-separated\n");
        lines.forEach(line -> out.append(line).append('\n'));
        return out.toString();
    }

    private List<Row> rows(List<List<String>> records) {
        List<String> header = records.get(0);
        List<String> expected = List.of("Id", "Name", "NumBytes", "Type", "Min", "Max", "Multiplier", "Units",
                "Description", "SupportedModels", "Groups");
        if (!header.equals(expected)) {
            throw new IllegalArgumentException("unexpected header " + header);
        }
        List<Row> rows = new ArrayList<>();
        for (int i = 1; i < records.size(); i++) {
            List<String> r = records.get(i);
            if (r.size() == 1 && r.get(0).isBlank()) {
                continue;
            }
            List<String> models = new ArrayList<>();
            for (String model : r.get(9).split(",")) {
                String m = model.trim().toUpperCase(Locale.ROOT);
                if (!m.isEmpty()) {
                    models.add(m);
                }
            }
            rows.add(new Row(i + 1, Integer.parseInt(r.get(0).trim()), r.get(1).trim(), r.get(2).trim(),
                    r.get(3).trim(), r.get(4).trim(), r.get(5).trim(), r.get(6).trim(), r.get(7), models));
        }
        return rows;
    }

    private Element clean(Row row, List<Row> all) {
        String type = row.type().toLowerCase(Locale.ROOT);
        if (!Set.of("unsigned", "signed", "hex", "ascii").contains(type)) {
            throw new IllegalArgumentException("line " + row.line() + ": unknown type " + row.type());
        }
        int declared = Integer.parseInt(row.numBytes());
        int bytes = declared == 1 || declared == 2 || declared == 4 || declared == 8 ? declared : 0;
        String unit = unit(row);
        if (bytes == 0) {
            // The stream carries such an element as a hex string: no scale, no unit applies.
            if (!unit.isEmpty() || !row.multiplier().equals("1")) {
                note("variable length: id " + row.id() + " " + row.name() + " (NumBytes " + declared
                        + "): unit '" + unit + "' and multiplier " + row.multiplier() + " dropped");
            }
            return new Element(row.id(), snake(row.name(), row.id()), type, 0, "1", "");
        }
        String multiplier = row.multiplier().isEmpty() ? "0" : row.multiplier();
        BigDecimal m = new BigDecimal(multiplier);
        if (m.signum() < 0) {
            throw new IllegalArgumentException("line " + row.line() + ": negative multiplier");
        }
        if (m.signum() == 0) {
            String borrowed = borrowed(row, unit, all);
            if (borrowed != null) {
                note("multiplier 0: id " + row.id() + " " + row.name() + " took " + borrowed
                        + " from the same element on other models (same name, unit, min, max)");
                multiplier = borrowed;
            } else if (RAW_UNITS.contains(unit)) {
                note("multiplier 0: id " + row.id() + " " + row.name() + " read as 1 (raw " + unit + ")");
                multiplier = "1";
            } else {
                note("multiplier 0: id " + row.id() + " " + row.name() + " read as 1"
                        + (unit.isEmpty() ? "" : ", unit '" + unit + "' dropped (scale unknown: the raw value is named,"
                        + " no unit claimed)"));
                multiplier = "1";
                unit = "";
            }
        }
        return new Element(row.id(), snake(row.name(), row.id()), type, bytes,
                new BigDecimal(multiplier).stripTrailingZeros().toPlainString(), unit);
    }

    private String unit(Row row) {
        String raw = row.units().trim();
        if (NOT_UNITS.contains(raw)) {
            note("unit: '" + raw.replace("\n", " ") + "' of id " + row.id() + " " + row.name() + " is no unit, dropped");
            return "";
        }
        String spelled = UNIT_SPELLINGS.getOrDefault(raw, raw);
        if (!spelled.equals(raw)) {
            note("unit: '" + raw + "' written '" + spelled + "' (id " + row.id() + ")");
        }
        return spelled;
    }

    private String borrowed(Row row, String unit, List<Row> all) {
        Set<String> found = new TreeSet<>();
        for (Row other : all) {
            if (other.id() == row.id() && other != row && snake(other.name(), other.id()).equals(snake(row.name(), row.id()))
                    && other.min().equals(row.min()) && other.max().equals(row.max())
                    && UNIT_SPELLINGS.getOrDefault(other.units(), other.units()).equals(unit)
                    && !other.multiplier().isEmpty() && new BigDecimal(other.multiplier()).signum() > 0) {
                found.add(other.multiplier());
            }
        }
        return found.size() == 1 ? found.iterator().next() : null;
    }

    /** Names two ids of one model share: the lowest id keeps it, the others get {@code _<id>}. */
    private Map<Integer, Element> renameCollisions(String model, Map<Integer, Element> elements) {
        Map<String, Integer> owner = new HashMap<>();
        Map<Integer, Element> out = new TreeMap<>();
        for (Element e : elements.values()) {
            Integer first = owner.putIfAbsent(e.name(), e.id());
            if (first == null) {
                out.put(e.id(), e);
            } else {
                String renamed = e.name() + "_" + e.id();
                note("collision: " + model + " ids " + first + " and " + e.id() + " are both '" + e.name() + "': "
                        + e.id() + " is '" + renamed + "'");
                out.put(e.id(), new Element(e.id(), renamed, e.type(), e.bytes(), e.multiplier(), e.unit()));
            }
        }
        Set<String> names = new TreeSet<>();
        out.values().forEach(e -> {
            if (!names.add(e.name())) {
                throw new IllegalStateException(model + ": '" + e.name() + "' twice after renaming");
            }
        });
        return out;
    }

    /** {@code External Voltage} to {@code external_voltage}; apostrophes dropped, other signs a separator. */
    static String snake(String name, int id) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("['’]", "").replaceAll("[^a-z0-9]+", "_")
                .replaceAll("^_+|_+$", "");
        return s.isEmpty() ? "io_" + id : s;
    }

    private void note(String line) {
        report.add(line);
    }

    /** RFC 4180 CSV: quoted fields may hold commas, quotes doubled, line breaks. */
    static final class Csv {
        static List<List<String>> parse(String text) {
            List<List<String>> records = new ArrayList<>();
            List<String> record = new ArrayList<>();
            StringBuilder field = new StringBuilder();
            boolean quoted = false;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (quoted) {
                    if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                        field.append('"');
                        i++;
                    } else if (c == '"') {
                        quoted = false;
                    } else {
                        field.append(c);
                    }
                } else if (c == '"') {
                    quoted = true;
                } else if (c == ',') {
                    record.add(field.toString());
                    field.setLength(0);
                } else if (c == '\n' || c == '\r') {
                    if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                        i++;
                    }
                    record.add(field.toString());
                    field.setLength(0);
                    records.add(record);
                    record = new ArrayList<>();
                } else {
                    field.append(c);
                }
            }
            if (field.length() > 0 || !record.isEmpty()) {
                record.add(field.toString());
                records.add(record);
            }
            return records;
        }
    }
}
