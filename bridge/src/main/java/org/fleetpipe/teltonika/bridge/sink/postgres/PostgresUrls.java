package org.fleetpipe.teltonika.bridge.sink.postgres;

import java.util.Locale;
import java.util.regex.Pattern;

/** What may be shown of a JDBC URL, whether it holds a secret, and which table names the sink takes. */
public final class PostgresUrls {

    /** Unquoted identifiers only: the name is written into SQL as it is, so nothing in it may need quoting. */
    private static final Pattern TABLE = Pattern.compile("[a-z_][a-z0-9_]{0,62}(\\.[a-z_][a-z0-9_]{0,62})?");

    private PostgresUrls() {
    }

    /** The URL without its query (options, maybe a user) and without user info: the hosts and the database. */
    public static String withoutSecrets(String url) {
        String bare = url.indexOf('?') < 0 ? url : url.substring(0, url.indexOf('?'));
        int hosts = bare.indexOf("//");
        int at = bare.indexOf('@');
        if (hosts >= 0 && at > hosts) {
            bare = bare.substring(0, hosts + 2) + bare.substring(at + 1);
        }
        return bare;
    }

    /** Whether the URL carries a password: a query parameter named like one, or user:password@ before the host. */
    public static boolean holdsSecret(String url) {
        int query = url.indexOf('?');
        if (query >= 0) {
            for (String parameter : url.substring(query + 1).split("&")) {
                int equals = parameter.indexOf('=');
                String key = (equals < 0 ? parameter : parameter.substring(0, equals)).toLowerCase(Locale.ROOT);
                if (key.contains("password")) {
                    return true;
                }
            }
        }
        String authority = query < 0 ? url : url.substring(0, query);
        int hosts = authority.indexOf("//");
        int at = authority.indexOf('@');
        return hosts >= 0 && at > hosts && authority.substring(hosts + 2, at).contains(":");
    }

    /** The names of the URL's query parameters, as given. */
    public static java.util.Set<String> parameters(String url) {
        java.util.Set<String> names = new java.util.HashSet<>();
        int query = url.indexOf('?');
        if (query >= 0) {
            for (String parameter : url.substring(query + 1).split("&")) {
                int equals = parameter.indexOf('=');
                names.add(equals < 0 ? parameter : parameter.substring(0, equals));
            }
        }
        return names;
    }

    /** A lower-case name or schema.name, letters, digits and underscores. */
    public static boolean validTable(String table) {
        return table != null && TABLE.matcher(table).matches();
    }
}
