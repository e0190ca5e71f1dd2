package org.fleetpipe.teltonika.bridge;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Settings for bridges started inside a test: short waits, any free port for /metrics. */
final class BridgeSettingsFixture {

    private BridgeSettingsFixture() {}

    static BridgeSettings http(String redisUrl, String consumer, URI url) {
        return new BridgeSettings(BridgeSettings.SinkKind.HTTP, redisUrl, "", "http", consumer, Optional.empty(),
                100, 4, Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofSeconds(5), 1000, "127.0.0.1", 0,
                null, new BridgeSettings.Http(url, Duration.ofSeconds(2), Map.of()), null);
    }

    static BridgeSettings kafka(String redisUrl, String consumer, String bootstrap, String topic) {
        return new BridgeSettings(BridgeSettings.SinkKind.KAFKA, redisUrl, "", "kafka", consumer, Optional.empty(),
                100, 4, Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofSeconds(5), 1000, "127.0.0.1", 0,
                new BridgeSettings.Kafka(bootstrap, topic, Map.of()), null, null);
    }
}
