package org.fleetpipe.teltonika.bridge;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Settings for bridges started inside a test: short waits, any free port for /metrics. */
final class BridgeSettingsFixture {

    private BridgeSettingsFixture() {}

    static BridgeSettings http(String redisUrl, String consumer, URI url) {
        return http(redisUrl, "", consumer, url);
    }

    static BridgeSettings http(String redisUrl, String namespace, String consumer, URI url) {
        return new BridgeSettings(BridgeSettings.SinkKind.HTTP, redisUrl, namespace, "http", consumer, Optional.empty(),
                0, 100, 4, Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofMillis(500), Duration.ofSeconds(5), 1000, "127.0.0.1", 0,
                null, new BridgeSettings.Http(url, Duration.ofSeconds(2), Map.of()), null);
    }

    static BridgeSettings kafka(String redisUrl, String consumer, String bootstrap, String topic) {
        return kafka(redisUrl, consumer, bootstrap, topic, Map.of());
    }

    /** With producer properties, as {@code --kafka-property} gives them. */
    static BridgeSettings kafka(String redisUrl, String consumer, String bootstrap, String topic,
                                Map<String, String> properties) {
        return new BridgeSettings(BridgeSettings.SinkKind.KAFKA, redisUrl, "", "kafka", consumer, Optional.empty(),
                0, 100, 4, Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofMillis(500), Duration.ofSeconds(5), 1000, "127.0.0.1", 0,
                new BridgeSettings.Kafka(bootstrap, topic, properties), null, null);
    }

    /**
     * Signs in as the broker fixture's bridge user; 150 in flight, fewer than 4 lanes of 100 can publish at
     * once, so lanes wait for room; a short timeout so a withheld PUBACK is retried soon.
     */
    static BridgeSettings mqtt(String redisUrl, String consumer, String serverUri) {
        return mqtt(redisUrl, consumer, serverUri, 256 * 1024);
    }

    /** As above, with {@code --mqtt-max-payload}. */
    static BridgeSettings mqtt(String redisUrl, String consumer, String serverUri, int maxPayload) {
        return mqtt(redisUrl, consumer, serverUri, maxPayload, 3);
    }

    /** As above, with {@code --mqtt-version} (3 for 3.1.1, or 5). */
    static BridgeSettings mqtt(String redisUrl, String consumer, String serverUri, int maxPayload, int version) {
        return new BridgeSettings(BridgeSettings.SinkKind.MQTT, redisUrl, "", "mqtt", consumer, Optional.empty(),
                0, 100, 4, Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofMillis(500), Duration.ofSeconds(5), 1000, "127.0.0.1", 0,
                null, null, new BridgeSettings.Mqtt(serverUri, "teltonika/{imei}/records",
                        InProcessMqttBroker.BRIDGE_USER, InProcessMqttBroker.BRIDGE_PASSWORD.toCharArray(), 150,
                        Duration.ofSeconds(2), maxPayload, version));
    }

    /** A PostgreSQL sink writing {@code table} as the user postgres (no password: the test server trusts). */
    static BridgeSettings postgres(String redisUrl, String consumer, String jdbcUrl, String table) {
        return new BridgeSettings(BridgeSettings.SinkKind.POSTGRES, redisUrl, "", "postgres", consumer, Optional.empty(),
                0, 100, 4, Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofMillis(500), Duration.ofSeconds(5), 1000,
                "127.0.0.1", 0, null, null, null, false, new BridgeSettings.Postgres(jdbcUrl, table, "postgres", null));
    }

    /**
     * The same settings with another {@code --shutdown-grace}: a test whose sink refuses everything to the end
     * waits the whole grace in its close, for lanes that can finish nothing.
     */
    static BridgeSettings withShutdownGrace(BridgeSettings s, Duration grace) {
        return new BridgeSettings(s.sink(), s.redisUrl(), s.namespace(), s.group(), s.consumer(), s.from(),
                s.partitions(), s.batch(), s.lanes(), s.claimIdle(), s.leaseTtl(), s.maxBackoff(), grace,
                s.deadLetterMax(), s.httpHost(), s.httpPort(), s.kafka(), s.http(), s.mqtt(), s.rebind(), s.postgres());
    }

    /** The same settings with {@code --from} as given on the command line. */
    static BridgeSettings withFrom(BridgeSettings s, String from) {
        return new BridgeSettings(s.sink(), s.redisUrl(), s.namespace(), s.group(), s.consumer(),
                org.fleetpipe.teltonika.bridge.stream.GroupStart.parseFrom(from), s.partitions(), s.batch(), s.lanes(),
                s.claimIdle(), s.leaseTtl(), s.maxBackoff(), s.shutdownGrace(), s.deadLetterMax(), s.httpHost(),
                s.httpPort(), s.kafka(), s.http(), s.mqtt(), s.rebind(), s.postgres());
    }
}
