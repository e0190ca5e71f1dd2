package org.fleetpipe.teltonika.bridge.sink.postgres;

import java.sql.SQLException;
import java.util.Set;
import org.fleetpipe.teltonika.bridge.sink.Outcome;

/**
 * What a failed insert means for its records, by SQLSTATE class. The database refusing a row for
 * its content (a data exception, 22; a constraint other than the record key, 23) refuses the
 * batch as a whole, since PostgreSQL does not say which row: the lane splits it until the record
 * stands alone. The database refusing the bridge (login, permissions, a missing database or schema,
 * the table changed under it) is retried without limit until someone fixes it. Everything else
 * (the database away or starting, a lost connection, read-only after a failover, a serialization
 * failure or deadlock, resources exhausted, a timeout, a driver error without a state) is retried.
 */
final class PostgresFailures {

    /** Classes where the database refuses the bridge rather than a record. */
    private static final Set<String> REFUSING = Set.of(
            "28", // invalid authorization: wrong user or password, pg_hba.conf
            "3D", // invalid catalog name: no such database
            "3F", // invalid schema name
            "42", // syntax error or access rule violation: no privilege, the table or a column gone
            "0A"); // feature not supported: not the PostgreSQL the bridge needs (jsonb, sha256)

    private PostgresFailures() {
    }

    static Outcome outcome(SQLException failure) {
        String state = failure.getSQLState();
        String reason = "SQLState " + state + ": " + firstLine(failure.getMessage());
        if (state == null || state.length() != 5) {
            return Outcome.retry(reason);
        }
        String type = state.substring(0, 2);
        if (type.equals("22") || type.equals("23")) {
            return Outcome.batchRejected(reason);
        }
        if (REFUSING.contains(type)) {
            return Outcome.refusing(reason);
        }
        // 08 connection, 25006 read-only, 40 rollback (serialization, deadlock), 53 resources,
        // 55 lock not available, 57 operator intervention and statement timeouts, 58 and XX.
        return Outcome.retry(reason);
    }

    /** Whether the connection that failed so is no longer worth keeping, nor the other idle ones. */
    static boolean connectionLost(SQLException failure) {
        String state = failure.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P") || state.equals("25006");
    }

    /** Whether the table may have been dropped or changed since it was checked: check it again. */
    static boolean tableChanged(SQLException failure) {
        String state = failure.getSQLState();
        return "42P01".equals(state) || "42703".equals(state) || "42804".equals(state) || "42P10".equals(state);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
