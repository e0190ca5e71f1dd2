package org.fleetpipe.teltonika.bridge.sink.kafka;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The producer properties of a SASL login (PLAIN or SCRAM) from a user name and a password taken
 * from the environment or a file, never from the command line: a process's arguments are readable
 * by anyone on its host and end up in shell histories and pod specs.
 */
public final class KafkaSasl {

    /** The mechanisms this bridge configures itself; others through a properties file of the operator's. */
    public static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    private KafkaSasl() {
    }

    /**
     * {@code security.protocol} (SASL_SSL unless {@code given} says otherwise), {@code sasl.mechanism}
     * and {@code sasl.jaas.config}; Kafka's client shows the last only as {@code [hidden]} in its logs.
     */
    public static Map<String, String> properties(String mechanism, String username, String password,
                                                 Map<String, String> given) {
        String upper = mechanism.trim().toUpperCase(Locale.ROOT);
        if (!MECHANISMS.contains(upper)) {
            throw new IllegalArgumentException("--kafka-sasl-mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512,"
                    + " got '" + mechanism + "'");
        }
        String module = upper.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("security.protocol", given.getOrDefault("security.protocol", "SASL_SSL"));
        properties.put("sasl.mechanism", upper);
        properties.put("sasl.jaas.config", module + " required username=\"" + quoted(username) + "\" password=\""
                + quoted(password) + "\";");
        return properties;
    }

    /** Whether a producer property holds a secret, which must not be given on the command line. */
    public static boolean secret(String key) {
        String k = key.trim().toLowerCase(Locale.ROOT);
        return k.equals("sasl.jaas.config") || k.endsWith(".password") || k.endsWith("password");
    }

    private static String quoted(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
