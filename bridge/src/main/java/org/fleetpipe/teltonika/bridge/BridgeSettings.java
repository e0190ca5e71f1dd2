package org.fleetpipe.teltonika.bridge;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a bridge replica is told at start, checked once; {@code partitions} 0 means as the
 * servers' layout key {@code telemetry:partitions} says (absent: 1, the one stream); {@code leaseTtl}
 * is how long a partition lease lasts unrenewed; {@code rebind} lets a start move the group to
 * another sink than the one it was bound to. One of {@code kafka}, {@code http}, {@code mqtt},
 * {@code postgres} is set, the one of {@code sink}.
 */
public record BridgeSettings(
        SinkKind sink,
        String redisUrl,
        String namespace,
        String group,
        String consumer,
        Optional<String> from,
        int partitions,
        int batch,
        int lanes,
        Duration claimIdle,
        Duration leaseTtl,
        Duration maxBackoff,
        Duration shutdownGrace,
        long deadLetterMax,
        String httpHost,
        int httpPort,
        Kafka kafka,
        Http http,
        Mqtt mqtt,
        boolean rebind,
        Postgres postgres) {

    /** Any sink but postgres. */
    public BridgeSettings(SinkKind sink, String redisUrl, String namespace, String group, String consumer,
                          Optional<String> from, int partitions, int batch, int lanes, Duration claimIdle,
                          Duration leaseTtl, Duration maxBackoff, Duration shutdownGrace, long deadLetterMax,
                          String httpHost, int httpPort, Kafka kafka, Http http, Mqtt mqtt, boolean rebind) {
        this(sink, redisUrl, namespace, group, consumer, from, partitions, batch, lanes, claimIdle, leaseTtl,
                maxBackoff, shutdownGrace, deadLetterMax, httpHost, httpPort, kafka, http, mqtt, rebind, null);
    }

    /** Any sink but postgres, without {@code --rebind}. */
    public BridgeSettings(SinkKind sink, String redisUrl, String namespace, String group, String consumer,
                          Optional<String> from, int partitions, int batch, int lanes, Duration claimIdle,
                          Duration leaseTtl, Duration maxBackoff, Duration shutdownGrace, long deadLetterMax,
                          String httpHost, int httpPort, Kafka kafka, Http http, Mqtt mqtt) {
        this(sink, redisUrl, namespace, group, consumer, from, partitions, batch, lanes, claimIdle, leaseTtl,
                maxBackoff, shutdownGrace, deadLetterMax, httpHost, httpPort, kafka, http, mqtt, false);
    }

    /**
     * What the group is bound to (SinkBinding): the kind and where, without credentials, a query
     * string or the Kafka bootstrap list (the same cluster may be reached through other brokers).
     */
    public String sinkTarget() {
        return switch (sink) {
            case HTTP -> "http " + withoutSecrets(http.url());
            case KAFKA -> "kafka topic=" + kafka.topic();
            case MQTT -> "mqtt " + withoutSecrets(URI.create(mqtt.serverUri())) + " topic=" + mqtt.topicTemplate();
            case POSTGRES -> "postgres " + postgres.where() + " table=" + postgres.table();
        };
    }

    private static String withoutSecrets(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    /** The four sinks. */
    public enum SinkKind { KAFKA, HTTP, MQTT, POSTGRES;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@code --sink kafka}. */
    public record Kafka(String bootstrapServers, String topic, Map<String, String> properties) {}

    /** {@code --sink http}. */
    public record Http(URI url, Duration timeout, Map<String, String> headers) {}

    /**
     * {@code --sink mqtt}; {@code timeout} bounds one batch: publishing it and its PUBACKs;
     * {@code maxPayload} the broker's largest message, in bytes: a record above it is refused;
     * {@code version} the protocol, 3 (MQTT 3.1.1) or 5.
     */
    public record Mqtt(String serverUri, String topicTemplate, String username, char[] password, int maxInFlight,
                       Duration timeout, int maxPayload, int version) {}

    /**
     * {@code --sink postgres}: the JDBC URL (no password in it), the table (optionally
     * schema-qualified), the user (null: the URL's, or the driver's default) and the password (null:
     * none), never printed.
     */
    public record Postgres(String url, String table, String user, String password) {

        /** The URL without its query (options, maybe a user) and without any user info: hosts and database. */
        public String where() {
            return org.fleetpipe.teltonika.bridge.sink.postgres.PostgresUrls.withoutSecrets(url);
        }

        @Override
        public String toString() {
            return "Postgres[url=" + where() + ", table=" + table + ", user=" + user + ", password="
                    + (password == null ? "none" : "(set)") + "]";
        }
    }
}
