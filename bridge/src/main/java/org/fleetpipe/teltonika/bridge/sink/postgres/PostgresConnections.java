package org.fleetpipe.teltonika.bridge.sink.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Properties;

/**
 * The sink's connections: at most one per lane in use (lanes send one batch at a time), kept idle
 * between batches, opened again after a failure. No pool library: nothing here waits for a
 * connection, and a broken one is dropped by the sink, which knows from the failure.
 */
final class PostgresConnections implements AutoCloseable {

    /** Used directly, not through DriverManager: the shaded jar needs no service registration. */
    private final org.postgresql.Driver driver = new org.postgresql.Driver();
    private final String url;
    private final Properties properties;
    private final Deque<Connection> idle = new ArrayDeque<>();
    private boolean closed;

    /**
     * {@code defaults} are connection properties the URL's own parameters override (pgjdbc reads the
     * URL's over the ones given).
     */
    PostgresConnections(String url, Properties defaults) {
        this.url = url;
        this.properties = defaults;
    }

    /** An idle connection, or a new one; in autocommit mode. */
    Connection borrow() throws SQLException {
        synchronized (this) {
            if (closed) {
                throw new SQLException("the sink is closed", "08003");
            }
            Connection connection = idle.pollFirst();
            if (connection != null) {
                return connection;
            }
        }
        Connection connection = driver.connect(url, properties);
        if (connection == null) {
            throw new SQLException("not a PostgreSQL JDBC URL: " + PostgresUrls.withoutSecrets(url), "08001");
        }
        connection.setAutoCommit(true);
        return connection;
    }

    /** A connection that worked, for the next batch. */
    void giveBack(Connection connection) {
        synchronized (this) {
            if (!closed) {
                idle.addFirst(connection);
                return;
            }
        }
        closeQuietly(connection);
    }

    /** A connection that failed as a lost one does, and every idle one: the server they lead to went away. */
    void discard(Connection connection) {
        closeQuietly(connection);
        Deque<Connection> stale;
        synchronized (this) {
            stale = new ArrayDeque<>(idle);
            idle.clear();
        }
        stale.forEach(PostgresConnections::closeQuietly);
    }

    @Override
    public void close() {
        Deque<Connection> left;
        synchronized (this) {
            closed = true;
            left = new ArrayDeque<>(idle);
            idle.clear();
        }
        left.forEach(PostgresConnections::closeQuietly);
    }

    private static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            // Already broken: nothing to release that the server has not released itself.
        }
    }
}
