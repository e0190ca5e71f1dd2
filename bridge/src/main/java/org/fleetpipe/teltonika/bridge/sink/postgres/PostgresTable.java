package org.fleetpipe.teltonika.bridge.sink.postgres;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.payload.EntryField;

/**
 * The sink's table: its DDL, the check that an existing one has the shape the insert needs, and
 * the insert of a batch. A record's key is {@code (imei, ts, record_key)}, {@code record_key} a
 * 128-bit hash of the record's content computed by the database from the payload: a record written
 * again (a retry after a lost commit, a redelivery after a crash, a replay, and a copy the servers
 * stored twice after a device resent it, TELEMETRY.md "Duplicates") is skipped by
 * {@code ON CONFLICT DO NOTHING}, while two different records a device stamped with the same time
 * are both kept.
 */
public final class PostgresTable {

    /** Column → its type as {@code format_type} names it, in the order of the DDL. */
    static final Map<String, String> COLUMNS = columns();
    /** Columns the insert may leave NULL: an existing table must allow it. */
    static final Set<String> NULLABLE = Set.of("gen", "valid", "model", "io_named");
    static final List<String> KEY = List.of("imei", "ts", "record_key");

    /**
     * What the key hashes: the fields a server-side duplicate shares (TELEMETRY.md, "Duplicates"),
     * not {@code rx}, {@code valid}, {@code instance}, the entry id, nor what the bridge adds (the
     * model and the names can change between two copies). {@code io} is the jsonb's own text,
     * which does not depend on the order of its keys.
     */
    static final String RECORD_KEY = "encode(substring(sha256(convert_to(concat_ws('|', r->>'codec', r->>'priority',"
            + " r->>'lat', r->>'lon', r->>'alt', r->>'angle', r->>'sat', r->>'speed', r->>'event', r->>'gen',"
            + " r->>'io'), 'UTF8')) from 1 for 16), 'hex')::uuid";

    private final String name;

    /** The table of that name (checked by the caller: PostgresUrls.validTable). */
    public PostgresTable(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    /** The entry's fields under their own names (EntryField), and what the bridge adds. */
    private static Map<String, String> columns() {
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put(EntryField.IMEI.key(), "text");
        columns.put(EntryField.TS.key(), "timestamp with time zone");
        columns.put("record_key", "uuid");
        columns.put(EntryField.RX.key(), "timestamp with time zone");
        columns.put("id", "text");
        columns.put(EntryField.CODEC.key(), "text");
        columns.put(EntryField.PRIORITY.key(), "smallint");
        columns.put(EntryField.LAT.key(), "double precision");
        columns.put(EntryField.LON.key(), "double precision");
        columns.put(EntryField.ALT.key(), "integer");
        columns.put(EntryField.ANGLE.key(), "integer");
        columns.put(EntryField.SAT.key(), "smallint");
        columns.put(EntryField.SPEED.key(), "integer");
        columns.put(EntryField.EVENT.key(), "integer");
        columns.put(EntryField.GEN.key(), "smallint");
        columns.put(EntryField.VALID.key(), "boolean");
        columns.put("model", "text");
        columns.put(EntryField.IO.key(), "jsonb");
        columns.put("io_named", "jsonb");
        return java.util.Collections.unmodifiableMap(columns);
    }

    /** The DDL the README gives, for this table's name. */
    public String createSql() {
        StringBuilder sql = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(name).append(" (\n");
        COLUMNS.forEach((column, type) -> sql.append("    ").append(column).append(' ').append(type)
                .append(NULLABLE.contains(column) ? "" : " NOT NULL").append(",\n"));
        return sql.append("    PRIMARY KEY (").append(String.join(", ", KEY)).append(")\n)").toString();
    }

    /**
     * One statement for the whole batch: the records' JSON as one jsonb array, taken apart by the
     * database, rows inserted in the batch's order, those already there skipped.
     */
    public String insertSql() {
        return "INSERT INTO " + name + " (" + String.join(", ", COLUMNS.keySet()) + ")\n"
                + "SELECT r->>'imei', timestamptz 'epoch' + (r->>'ts')::bigint * interval '1 millisecond',\n"
                + "       " + RECORD_KEY + ",\n"
                + "       timestamptz 'epoch' + (r->>'rx')::bigint * interval '1 millisecond', r->>'id', r->>'codec',\n"
                + "       (r->>'priority')::smallint, (r->>'lat')::double precision, (r->>'lon')::double precision,\n"
                + "       (r->>'alt')::integer, (r->>'angle')::integer, (r->>'sat')::smallint, (r->>'speed')::integer,\n"
                + "       (r->>'event')::integer, (r->>'gen')::smallint, (r->>'valid')::integer::boolean, r->>'model',\n"
                + "       r->'io', r->'io_named'\n"
                + "FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS batch(r, n)\n"
                + "ORDER BY n\n"
                + "ON CONFLICT (" + String.join(", ", KEY) + ") DO NOTHING";
    }

    /** Inserts the batch in the connection's own transaction (autocommit: one round trip); the rows added. */
    int insert(Connection connection, List<OutboundRecord> batch) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(insertSql())) {
            insert.setString(1, jsonArray(batch));
            return insert.executeUpdate();
        }
    }

    /** The batch's records as one JSON array, the insert's one parameter. */
    public static String jsonArray(List<OutboundRecord> batch) {
        int size = 2;
        for (OutboundRecord record : batch) {
            size += record.json().length + 1;
        }
        byte[] array = new byte[size];
        int at = 0;
        array[at++] = '[';
        for (int i = 0; i < batch.size(); i++) {
            if (i > 0) {
                array[at++] = ',';
            }
            byte[] json = batch.get(i).json();
            System.arraycopy(json, 0, array, at, json.length);
            at += json.length;
        }
        array[at++] = ']';
        return new String(array, 0, at, StandardCharsets.UTF_8);
    }

    /**
     * Creates the table when it is missing; then checks it. Throws {@link TableShapeException}
     * naming every difference that would make inserts fail.
     */
    boolean ensure(Connection connection) throws SQLException {
        boolean created = false;
        if (!exists(connection)) {
            try (Statement create = connection.createStatement()) {
                create.execute(createSql());
                created = true;
            } catch (SQLException e) {
                // Two replicas starting at once: the other one's CREATE won the race.
                if (!exists(connection)) {
                    throw e;
                }
            }
        }
        List<String> problems = problems(connection);
        if (!problems.isEmpty()) {
            throw new TableShapeException("table " + name + " exists with another shape: " + String.join("; ", problems)
                    + " (bridge/README.md, \"PostgreSQL\", has the DDL; or give another --table)");
        }
        return created;
    }

    private boolean exists(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            query.setString(1, name);
            try (ResultSet result = query.executeQuery()) {
                return result.next() && result.getBoolean(1);
            }
        }
    }

    /** What differs from the shape the insert needs; empty when nothing does. */
    List<String> problems(Connection connection) throws SQLException {
        List<String> problems = new ArrayList<>();
        Map<String, String> missing = new LinkedHashMap<>(COLUMNS);
        try (PreparedStatement query = connection.prepareStatement("SELECT a.attname, format_type(a.atttypid,"
                + " a.atttypmod), a.attnotnull, a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> ''"
                + " FROM pg_attribute a WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped"
                + " ORDER BY a.attnum")) {
            query.setString(1, name);
            try (ResultSet columns = query.executeQuery()) {
                while (columns.next()) {
                    String column = columns.getString(1);
                    String type = columns.getString(2);
                    boolean notNull = columns.getBoolean(3);
                    boolean filled = columns.getBoolean(4);
                    String wanted = missing.remove(column);
                    if (wanted == null) {
                        if (notNull && !filled) {
                            problems.add("column " + column + " is NOT NULL without a default (the bridge does not"
                                    + " write it)");
                        }
                    } else if (!wanted.equals(type)) {
                        problems.add("column " + column + " is " + type + ", not " + wanted);
                    } else if (notNull && NULLABLE.contains(column)) {
                        problems.add("column " + column + " is NOT NULL, but a record may have none");
                    }
                }
            }
        }
        missing.forEach((column, type) -> problems.add("column " + column + " " + type + " is missing"));
        if (!hasKey(connection)) {
            problems.add("no unique key (" + String.join(", ", KEY) + "), which makes a record's second write a no-op");
        }
        return problems;
    }

    private boolean hasKey(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_index i"
                + " WHERE i.indrelid = to_regclass(?) AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL"
                + " AND i.indnatts = 3 AND (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a"
                + " WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)) = ARRAY['imei', 'record_key', 'ts'])")) {
            query.setString(1, name);
            try (ResultSet result = query.executeQuery()) {
                return result.next() && result.getBoolean(1);
            }
        }
    }

    /** An existing table the bridge cannot write: every insert would fail until someone changes it. */
    static final class TableShapeException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        TableShapeException(String message) {
            super(message);
        }
    }
}
