package org.fleetpipe.teltonika.bridge.sink.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each batch into one table with one statement, in its own transaction: delivered once the
 * database committed it, so the stream entries are acknowledged only after the commit. A record
 * written again (a retry after a lost answer to a commit, a redelivery after a crash, a replay) is
 * skipped by its key (PostgresTable): each record is in the table once. A lane's batches go one at
 * a time, so a device's records are committed in stream order.
 */
public final class PostgresSink implements Sink {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSink.class);

    private final PostgresTable table;
    private final PostgresConnections connections;
    /** Whether the table was found (or made) as the insert needs it, since the start or the last doubt. */
    private volatile boolean tableChecked;

    /**
     * {@code user} and {@code password} may be null (the URL's user, no password); a parameter of
     * the URL (the user, timeouts, keepalive, the application name) wins over the one given here.
     */
    public PostgresSink(String url, String table, String user, String password, String applicationName) {
        Properties defaults = new Properties();
        java.util.Set<String> inUrl = PostgresUrls.parameters(url);
        // A connection that stops answering must fail the batch (retried), not hold the lane.
        putUnlessIn(inUrl, defaults, "connectTimeout", "10");
        putUnlessIn(inUrl, defaults, "socketTimeout", "30");
        putUnlessIn(inUrl, defaults, "tcpKeepAlive", "true");
        putUnlessIn(inUrl, defaults, "ApplicationName", applicationName);
        if (user != null) {
            putUnlessIn(inUrl, defaults, "user", user);
        }
        if (password != null) {
            defaults.setProperty("password", password);
        }
        this.table = new PostgresTable(table);
        this.connections = new PostgresConnections(url, defaults);
    }

    /** The URL's own parameter is the one in force, whatever the driver's precedence. */
    private static void putUnlessIn(java.util.Set<String> inUrl, Properties properties, String key, String value) {
        if (!inUrl.contains(key)) {
            properties.setProperty(key, value);
        }
    }

    @Override
    public String name() {
        return "postgres";
    }

    /**
     * Creates the table when missing, and refuses to start when it exists with another shape. A
     * database not reachable yet is no reason not to start: the records wait, and the table is
     * checked at the first connection.
     */
    @Override
    public void prepare() {
        Connection connection = null;
        try {
            connection = connections.borrow();
            check(connection);
            connections.giveBack(connection);
        } catch (PostgresTable.TableShapeException e) {
            connections.giveBack(connection);
            throw new IllegalStateException("postgres " + e.getMessage(), e);
        } catch (SQLException e) {
            connections.discard(connection);
            LOG.warn("postgres not ready at start, reason=\"{}\": records wait in the stream, the table is checked at"
                    + " the first connection", PostgresFailures.outcome(e).reason());
        }
    }

    @Override
    public List<Outcome> deliver(List<OutboundRecord> batch) {
        Connection connection = null;
        try {
            connection = connections.borrow();
            if (!tableChecked) {
                check(connection);
            }
            int added = table.insert(connection, batch);
            connections.giveBack(connection);
            if (added < batch.size()) {
                LOG.debug("postgres table={} records={} already there={}", table.name(), batch.size(),
                        batch.size() - added);
            }
            return Collections.nCopies(batch.size(), Outcome.DELIVERED);
        } catch (PostgresTable.TableShapeException e) {
            connections.giveBack(connection);
            return Collections.nCopies(batch.size(), Outcome.refusing(e.getMessage()));
        } catch (SQLException e) {
            if (PostgresFailures.connectionLost(e)) {
                connections.discard(connection);
            } else if (connection != null) {
                connections.giveBack(connection);
            }
            if (PostgresFailures.tableChanged(e)) {
                tableChecked = false;
            }
            return Collections.nCopies(batch.size(), PostgresFailures.outcome(e));
        }
    }

    private void check(Connection connection) throws SQLException {
        if (table.ensure(connection)) {
            LOG.info("postgres created table {} (bridge/README.md, \"PostgreSQL\")", table.name());
        }
        tableChecked = true;
    }

    @Override
    public void close() {
        connections.close();
    }
}
