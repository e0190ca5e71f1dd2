package org.fleetpipe.teltonika.bridge;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a bridge replica is told at start, checked once; {@code partitions} 0 means as the
 * servers' layout key {@code telemetry:partitions} says (absent: 1, the one stream); {@code leaseTtl}
 * is how long a partition lease lasts unrenewed.
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
        Mqtt mqtt) {

    /** The three sinks. */
    public enum SinkKind { KAFKA, HTTP, MQTT;

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
     * {@code maxPayload} the broker's largest message, in bytes: a record above it is refused.
     */
    public record Mqtt(String serverUri, String topicTemplate, String username, char[] password, int maxInFlight,
                       Duration timeout, int maxPayload) {}
}
