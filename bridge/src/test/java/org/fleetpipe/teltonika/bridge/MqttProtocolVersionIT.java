package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --mqtt-version 5} against a broker that speaks only MQTT 3.1.1 (Moquette 0.17 answers an
 * MQTT 5 CONNECT with "unacceptable protocol version"): the broker refuses the bridge, not a
 * record, so it is retried without limit and nothing is dead-lettered.
 */
@WithRedis
class MqttProtocolVersionIT {

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private InProcessMqttBroker broker;
    private Bridge bridge;

    @BeforeEach
    void setUp(RedisFixture fixture) throws Exception {
        connection = fixture.client().connect();
        redis = connection.sync();
        broker = new InProcessMqttBroker();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (bridge != null) {
            bridge.close();
        }
        broker.close();
        connection.close();
    }

    @Test
    void mqtt5AgainstABrokerWithoutIt_isRefusing_everyRecordPending_nothingDeadLettered(RedisFixture fixture)
            throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.withShutdownGrace(
                BridgeSettingsFixture.mqtt(fixture.uri(), "m5", broker.url(), 256 * 1024, 5), Duration.ofSeconds(1));
        bridge = new Bridge(settings, BridgeMain.sink(settings));
        bridge.start();
        new TelemetryEntries(redis, "telemetry").addFleet(10, 3, 0);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> bridge.registry().find("teltonika_bridge_sink_refusing").gauge().value() == 1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6))
                .until(() -> redis.xpending("telemetry", "mqtt").getCount() == 30
                        && redis.xlen("dlq:bridge:mqtt") == 0);
        assertThat(bridge.registry().find("teltonika_bridge_delivered").counter().count()).isZero();
    }
}
