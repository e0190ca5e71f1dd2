package org.fleetpipe.teltonika.bridge;

import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetpipe.teltonika.bridge.BridgeSettings.SinkKind;
import org.fleetpipe.teltonika.bridge.sink.kafka.KafkaSasl;
import org.fleetpipe.teltonika.bridge.sink.postgres.PostgresUrls;
import org.fleetpipe.teltonika.bridge.stream.GroupStart;
import org.fleetpipe.teltonika.cli.DurationConverter;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The bridge's command line; every option also has an environment variable, for Kubernetes. */
@Command(name = "bridge", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Delivers the telemetry stream to Kafka, an HTTP endpoint, MQTT or PostgreSQL, acknowledging a stream"
                + " entry only after the sink confirmed its record.")
final class BridgeCommand {

    @Option(names = "--sink", required = true, defaultValue = "${env:BRIDGE_SINK}",
            description = "kafka, http, mqtt or postgres (BRIDGE_SINK)")
    String sink;

    @Option(names = "--redis-url", defaultValue = "${env:REDIS_URL}",
            description = "the servers' Redis (REDIS_URL)")
    String redisUrl;

    @Option(names = "--namespace", defaultValue = "${env:REDIS_NAMESPACE:-}",
            description = "the servers' key prefix (REDIS_NAMESPACE)")
    String namespace;

    @Option(names = "--group", defaultValue = "${env:BRIDGE_GROUP}",
            description = "consumer group; default: the sink's name (BRIDGE_GROUP)")
    String group;

    @Option(names = "--consumer", defaultValue = "${env:BRIDGE_CONSUMER}",
            description = "this replica's name in the group, stable across restarts; default: the host name"
                    + " (the pod name) (BRIDGE_CONSUMER)")
    String consumer;

    @Option(names = "--from", defaultValue = "${env:BRIDGE_FROM}",
            description = "replay: create or move the group to this entry id or ISO time, or 0 for all the stream"
                    + " still holds; end: a new group skips what the stream holds (without: a new group starts at"
                    + " the oldest entry held) (BRIDGE_FROM)")
    String from;

    @Option(names = "--redrive", description = "send the group's dead letters (dlq:bridge:<group>) to the sink"
            + " once, oldest first, removing each one the sink took; then exit (0: none refused again, 3: some)")
    boolean redrive;

    @Option(names = "--rebind", defaultValue = "${env:BRIDGE_REBIND:-false}",
            description = "start although the group was bound to another sink (kind, URL or topic) at its first"
                    + " start, and bind it to this one (BRIDGE_REBIND, false)")
    boolean rebind;

    @Option(names = "--partitions", defaultValue = "${env:TELEMETRY_PARTITIONS}",
            description = "how many partition streams telemetry:{p} the servers write; default: what they wrote in"
                    + " telemetry:partitions, else 1 (TELEMETRY_PARTITIONS)")
    Integer partitions;

    @Option(names = "--batch", defaultValue = "${env:BRIDGE_BATCH:-500}",
            description = "records per sink call (BRIDGE_BATCH, 500)")
    int batch;

    @Option(names = "--lanes", defaultValue = "${env:BRIDGE_LANES:-4}",
            description = "batches in flight at once, devices spread over them (BRIDGE_LANES, 4)")
    int lanes;

    @Option(names = "--claim-idle", defaultValue = "${env:BRIDGE_CLAIM_IDLE:-60s}",
            converter = DurationConverter.class,
            description = "take over entries another replica held this long without touching them"
                    + " (BRIDGE_CLAIM_IDLE, 60s)")
    Duration claimIdle;

    @Option(names = "--lease-ttl", defaultValue = "${env:BRIDGE_LEASE_TTL:-15s}",
            converter = DurationConverter.class,
            description = "how long a partition lease lasts unless renewed (every third of it); a stopped replica's"
                    + " partitions move at once, a dead one's after this (BRIDGE_LEASE_TTL, 15s)")
    Duration leaseTtl;

    @Option(names = "--max-backoff", defaultValue = "${env:BRIDGE_MAX_BACKOFF:-30s}",
            converter = DurationConverter.class,
            description = "longest wait between two tries of a failing sink (BRIDGE_MAX_BACKOFF, 30s)")
    Duration maxBackoff;

    @Option(names = "--shutdown-grace", defaultValue = "${env:BRIDGE_SHUTDOWN_GRACE:-20s}",
            converter = DurationConverter.class,
            description = "on SIGTERM, time to finish the batches in flight (BRIDGE_SHUTDOWN_GRACE, 20s)")
    Duration shutdownGrace;

    @Option(names = "--dead-letter-max", defaultValue = "${env:BRIDGE_DEAD_LETTER_MAX:-100000}",
            description = "cap of the stream dlq:bridge:<group> (BRIDGE_DEAD_LETTER_MAX, 100000)")
    long deadLetterMax;

    @Option(names = "--http-host", defaultValue = "${env:BRIDGE_HTTP_HOST:-0.0.0.0}",
            description = "address of /metrics and /health (BRIDGE_HTTP_HOST)")
    String httpHost;

    @Option(names = "--http-port", defaultValue = "${env:BRIDGE_HTTP_PORT:-8090}",
            description = "port of /metrics and /health, 0 for any (BRIDGE_HTTP_PORT, 8090)")
    int httpPort;

    @Option(names = "--topic", defaultValue = "${env:BRIDGE_TOPIC}",
            description = "kafka: the topic (teltonika.records); mqtt: the topic template with {imei}"
                    + " (teltonika/{imei}/records) (BRIDGE_TOPIC)")
    String topic;

    @Option(names = "--bootstrap-servers", defaultValue = "${env:KAFKA_BOOTSTRAP_SERVERS}",
            description = "kafka: host:port,... (KAFKA_BOOTSTRAP_SERVERS)")
    String bootstrapServers;

    @Option(names = "--kafka-property", description = "kafka: a producer property, key=value, repeatable"
            + " (security, compression, timeouts; acks and idempotence stay as the bridge needs them)")
    Map<String, String> kafkaProperties = new LinkedHashMap<>();

    @Option(names = "--kafka-sasl-mechanism", defaultValue = "${env:KAFKA_SASL_MECHANISM}",
            description = "kafka: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 to log in with --kafka-sasl-username and"
                    + " the password of KAFKA_SASL_PASSWORD or --kafka-sasl-password-file, never an option"
                    + " (KAFKA_SASL_MECHANISM)")
    String kafkaSaslMechanism;

    @Option(names = "--kafka-sasl-username", defaultValue = "${env:KAFKA_SASL_USERNAME}",
            description = "kafka: the SASL user (KAFKA_SASL_USERNAME)")
    String kafkaSaslUsername;

    @Option(names = "--kafka-sasl-password-file", defaultValue = "${env:KAFKA_SASL_PASSWORD_FILE}",
            description = "kafka: a file holding the SASL password, such as a mounted Secret; or set"
                    + " KAFKA_SASL_PASSWORD (KAFKA_SASL_PASSWORD_FILE)")
    String kafkaSaslPasswordFile;

    @Option(names = "--url", defaultValue = "${env:BRIDGE_URL}", description = "http: where to POST; postgres: the"
            + " JDBC URL, jdbc:postgresql://host:5432/db?sslmode=verify-full, no password in it (BRIDGE_URL)")
    String url;

    @Option(names = "--http-timeout", defaultValue = "${env:BRIDGE_HTTP_TIMEOUT:-10s}",
            converter = DurationConverter.class,
            description = "http: time for one POST to be answered (BRIDGE_HTTP_TIMEOUT, 10s)")
    Duration httpTimeout;

    @Option(names = "--header", description = "http: a request header, 'Name: value', repeatable; a secret is"
            + " better in BRIDGE_HTTP_AUTHORIZATION (sent as Authorization)")
    List<String> headers = List.of();

    @Option(names = "--mqtt-url", defaultValue = "${env:MQTT_URL}",
            description = "mqtt: tcp://host:1883 or ssl://host:8883 (MQTT_URL)")
    String mqttUrl;

    @Option(names = "--mqtt-username", defaultValue = "${env:MQTT_USERNAME}",
            description = "mqtt: user name; the password only from MQTT_PASSWORD (MQTT_USERNAME)")
    String mqttUsername;

    @Option(names = "--mqtt-max-in-flight", defaultValue = "${env:MQTT_MAX_IN_FLIGHT:-1000}",
            description = "mqtt: QoS 1 messages awaiting PUBACK at once (MQTT_MAX_IN_FLIGHT, 1000)")
    int mqttMaxInFlight;

    @Option(names = "--mqtt-max-payload", defaultValue = "${env:MQTT_MAX_PAYLOAD:-131072}",
            description = "mqtt: the broker's largest message in bytes; a record above it is dead-lettered instead of"
                    + " sent (a broker drops the connection over one) (MQTT_MAX_PAYLOAD, 131072)")
    int mqttMaxPayload;

    @Option(names = "--mqtt-timeout", defaultValue = "${env:MQTT_TIMEOUT:-10s}",
            converter = DurationConverter.class,
            description = "mqtt: time for a batch to be published and PUBACKed, and for a connect"
                    + " (MQTT_TIMEOUT, 10s)")
    Duration mqttTimeout;

    @Option(names = "--mqtt-version", defaultValue = "${env:MQTT_VERSION:-3.1.1}",
            description = "mqtt: the protocol, 3.1.1 or 5 (MQTT_VERSION, 3.1.1)")
    String mqttVersion;

    @Option(names = "--table", defaultValue = "${env:BRIDGE_TABLE:-telemetry}",
            description = "postgres: the table, or schema.table; created when missing (BRIDGE_TABLE, telemetry)")
    String table;

    @Option(names = "--postgres-user", defaultValue = "${env:POSTGRES_USER}",
            description = "postgres: the user; the password from POSTGRES_PASSWORD or --postgres-password-file, never"
                    + " an option or the URL (POSTGRES_USER)")
    String postgresUser;

    @Option(names = "--postgres-password-file", defaultValue = "${env:POSTGRES_PASSWORD_FILE}",
            description = "postgres: a file holding the password, such as a mounted Secret; or set POSTGRES_PASSWORD"
                    + " (POSTGRES_PASSWORD_FILE)")
    String postgresPasswordFile;

    /** Checks the options against each other and names the first problem. */
    BridgeSettings settings(Map<String, String> environment) {
        SinkKind kind = switch (sink == null ? "" : sink.trim()) {
            case "kafka" -> SinkKind.KAFKA;
            case "http" -> SinkKind.HTTP;
            case "mqtt" -> SinkKind.MQTT;
            case "postgres" -> SinkKind.POSTGRES;
            default -> throw new IllegalArgumentException("--sink must be kafka, http, mqtt or postgres, got '" + sink
                    + "'");
        };
        require(redisUrl != null && !redisUrl.isBlank(), "REDIS_URL (or --redis-url) is required");
        require(partitions == null || (partitions >= 1 && partitions <= TelemetryLayout.MAX_PARTITIONS),
                "--partitions must be 1.." + TelemetryLayout.MAX_PARTITIONS);
        require(batch >= 1 && batch <= 10_000, "--batch must be 1..10000");
        require(lanes >= 1 && lanes <= 256, "--lanes must be 1..256");
        require(deadLetterMax >= 1, "--dead-letter-max must be at least 1");
        require(httpPort >= 0 && httpPort <= 65535, "--http-port must be 0..65535");
        require(leaseTtl.toMillis() >= 1_000 && leaseTtl.toMinutes() <= 10, "--lease-ttl must be 1s..10m");
        String groupName = group == null || group.isBlank() ? kind.label() : group.trim();
        BridgeSettings.Kafka kafka = null;
        BridgeSettings.Http http = null;
        BridgeSettings.Mqtt mqtt = null;
        BridgeSettings.Postgres postgres = null;
        switch (kind) {
            case KAFKA -> {
                require(bootstrapServers != null && !bootstrapServers.isBlank(),
                        "--bootstrap-servers (or KAFKA_BOOTSTRAP_SERVERS) is required with --sink kafka");
                for (String key : kafkaProperties.keySet()) {
                    require(!KafkaSasl.secret(key), "--kafka-property " + key + " holds a secret, which the command"
                            + " line shows to anyone on the host: give the SASL password in KAFKA_SASL_PASSWORD or"
                            + " --kafka-sasl-password-file, with --kafka-sasl-mechanism and --kafka-sasl-username");
                }
                Map<String, String> properties = new LinkedHashMap<>(kafkaProperties);
                if (kafkaSaslMechanism != null && !kafkaSaslMechanism.isBlank()) {
                    require(kafkaSaslUsername != null && !kafkaSaslUsername.isBlank(),
                            "--kafka-sasl-username (or KAFKA_SASL_USERNAME) is required with --kafka-sasl-mechanism");
                    String password = password(environment.get("KAFKA_SASL_PASSWORD"), "KAFKA_SASL_PASSWORD",
                            kafkaSaslPasswordFile, "--kafka-sasl-password-file");
                    require(password != null, "--kafka-sasl-mechanism needs a password: KAFKA_SASL_PASSWORD or"
                            + " --kafka-sasl-password-file");
                    properties.putAll(KafkaSasl.properties(kafkaSaslMechanism, kafkaSaslUsername.trim(), password,
                            kafkaProperties));
                }
                kafka = new BridgeSettings.Kafka(bootstrapServers, orDefault(topic, "teltonika.records"),
                        Map.copyOf(properties));
            }
            case HTTP -> {
                require(url != null && !url.isBlank(), "--url (or BRIDGE_URL) is required with --sink http");
                URI uri = URI.create(url.trim());
                require("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()),
                        "--url must be http:// or https://, got '" + url + "'");
                Map<String, String> headerMap = new LinkedHashMap<>();
                for (String header : headers) {
                    int colon = header.indexOf(':');
                    require(colon > 0, "--header must be 'Name: value', got '" + header + "'");
                    headerMap.put(header.substring(0, colon).trim(), header.substring(colon + 1).trim());
                }
                String authorization = environment.get("BRIDGE_HTTP_AUTHORIZATION");
                if (authorization != null && !authorization.isBlank()) {
                    headerMap.put("Authorization", authorization.trim());
                }
                http = new BridgeSettings.Http(uri, httpTimeout, headerMap);
            }
            case MQTT -> {
                require(mqttUrl != null && !mqttUrl.isBlank(), "--mqtt-url (or MQTT_URL) is required with --sink mqtt");
                URI server = URI.create(mqttUrl.trim());
                require(("tcp".equals(server.getScheme()) || "ssl".equals(server.getScheme()))
                        && server.getHost() != null, "--mqtt-url must be tcp://host:port or ssl://host:port, got '"
                        + mqttUrl + "'");
                String template = orDefault(topic, "teltonika/{imei}/records");
                require(template.contains("{imei}"), "--topic for mqtt must contain {imei}, got '" + template + "'");
                // Wildcards are for subscribing: a broker refuses such a topic in a PUBLISH (the client already does).
                require(!template.contains("+") && !template.contains("#"),
                        "--topic for mqtt must not contain the wildcards + or #, got '" + template + "'");
                require(mqttMaxInFlight >= 1 && mqttMaxInFlight <= 65_535, "--mqtt-max-in-flight must be 1..65535");
                require(mqttTimeout.toMillis() >= 1_000 && mqttTimeout.toMinutes() <= 10,
                        "--mqtt-timeout must be 1s..10m");
                require(mqttMaxPayload >= 1024 && mqttMaxPayload <= 268_435_455,
                        "--mqtt-max-payload must be 1024..268435455");
                require("3.1.1".equals(mqttVersion) || "3".equals(mqttVersion) || "5".equals(mqttVersion),
                        "--mqtt-version must be 3.1.1 or 5, got '" + mqttVersion + "'");
                String password = environment.get("MQTT_PASSWORD");
                mqtt = new BridgeSettings.Mqtt(server.toString(), template,
                        mqttUsername == null || mqttUsername.isBlank() ? null : mqttUsername.trim(),
                        password == null || password.isEmpty() ? null : password.toCharArray(), mqttMaxInFlight,
                        mqttTimeout, mqttMaxPayload, "5".equals(mqttVersion) ? 5 : 3);
            }
            case POSTGRES -> {
                require(url != null && !url.isBlank(), "--url (or BRIDGE_URL) is required with --sink postgres");
                String jdbc = url.trim();
                require(jdbc.startsWith("jdbc:postgresql:"), "--url for postgres must be jdbc:postgresql://host:port/db,"
                        + " got '" + PostgresUrls.withoutSecrets(jdbc) + "'");
                // The URL is an option, so on the command line or in a pod spec: no secret may be in it.
                require(!PostgresUrls.holdsSecret(jdbc), "--url holds a password, which the command line shows to"
                        + " anyone on the host: give it in POSTGRES_PASSWORD or --postgres-password-file, the user in"
                        + " --postgres-user");
                String tableName = table == null ? "" : table.trim();
                require(PostgresUrls.validTable(tableName), "--table must be a lower-case name or schema.name"
                        + " (letters, digits, _), got '" + table + "'");
                postgres = new BridgeSettings.Postgres(jdbc, tableName,
                        postgresUser == null || postgresUser.isBlank() ? null : postgresUser.trim(),
                        password(environment.get("POSTGRES_PASSWORD"), "POSTGRES_PASSWORD", postgresPasswordFile,
                                "--postgres-password-file"));
            }
        }
        return new BridgeSettings(kind, redisUrl.trim(), namespace == null ? "" : namespace, groupName,
                consumerName(), GroupStart.parseFrom(from), partitions == null ? 0 : partitions, batch, lanes,
                claimIdle, leaseTtl, maxBackoff, shutdownGrace,
                deadLetterMax, httpHost, httpPort, kafka, http, mqtt, rebind, postgres);
    }

    /**
     * A password from its environment variable or from a file (its content without the final line
     * break), never both; null when neither is given.
     */
    private static String password(String fromEnvironment, String variable, String file, String fileOption) {
        boolean fromFile = file != null && !file.isBlank();
        require(fromEnvironment == null || !fromFile, "give the password once: " + variable + " or " + fileOption
                + ", not both");
        if (!fromFile) {
            return fromEnvironment == null || fromEnvironment.isEmpty() ? null : fromEnvironment;
        }
        try {
            String text = java.nio.file.Files.readString(java.nio.file.Path.of(file.trim()));
            String password = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
            require(!password.isEmpty(), fileOption + " " + file + " is empty");
            return password;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read " + fileOption + " " + file + ": " + e.getMessage(), e);
        }
    }

    private String consumerName() {
        if (consumer != null && !consumer.isBlank()) {
            return consumer.trim();
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "bridge-" + ProcessHandle.current().pid();
        }
    }

    private static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
