package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.time.Duration;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/** A group stays with the sink it was first started with, unless a start says {@code --rebind}. */
@WithRedis
class SinkBindingIT {

    @Test
    void aGroupStartedWithAnotherUrl_isRefused_untilToldToRebind(RedisFixture fixture) throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect();
             RecordingHttpSink first = new RecordingHttpSink();
             RecordingHttpSink second = new RecordingHttpSink()) {
            RedisCommands<String, String> redis = connection.sync();
            TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
            BridgeSettings original = BridgeSettingsFixture.http(fixture.uri(), "b1", first.url());
            try (Bridge bridge = new Bridge(original, BridgeMain.sink(original))) {
                bridge.start();
                entries.addFleet(5, 2, 0);
                await().atMost(Duration.ofSeconds(20)).until(() -> first.accepted() == 10);
            }
            assertThat(redis.get("bridge:binding:http")).isEqualTo("http " + first.url());

            entries.addFleet(5, 2, 2);
            BridgeSettings moved = BridgeSettingsFixture.http(fixture.uri(), "b1",
                    URI.create(second.url() + "?token=secret"));
            try (Bridge bridge = new Bridge(moved, BridgeMain.sink(moved))) {
                assertThatThrownBy(bridge::start).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("delivers to \"http " + first.url() + "\"")
                        .hasMessageContaining("--rebind").hasMessageNotContaining("secret");
            }
            assertThat(redis.xpending("telemetry", "http").getCount()).isZero();
            assertThat(second.requests()).isZero();

            BridgeSettings rebound = rebind(moved);
            try (Bridge bridge = new Bridge(rebound, BridgeMain.sink(rebound))) {
                bridge.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> second.accepted() == 10);
            }
            assertThat(redis.get("bridge:binding:http")).isEqualTo("http " + second.url());
            assertThat(first.accepted()).isEqualTo(10);
        }
    }

    @Test
    void aGroupStartedWithAnotherSinkKind_isRefused(RedisFixture fixture) throws Exception {
        try (RecordingHttpSink endpoint = new RecordingHttpSink()) {
            BridgeSettings http = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
            try (Bridge bridge = new Bridge(http, BridgeMain.sink(http))) {
                bridge.start();
            }
            BridgeSettings m = BridgeSettingsFixture.mqtt(fixture.uri(), "m1", "tcp://127.0.0.1:1");
            BridgeSettings mqttOnHttpsGroup = new BridgeSettings(m.sink(), m.redisUrl(), m.namespace(), "http",
                    m.consumer(), m.from(), m.partitions(), m.batch(), m.lanes(), m.claimIdle(), m.leaseTtl(),
                    m.maxBackoff(), m.shutdownGrace(), m.deadLetterMax(), m.httpHost(), m.httpPort(), m.kafka(),
                    m.http(), m.mqtt());
            try (Bridge bridge = new Bridge(mqttOnHttpsGroup, BridgeMain.sink(mqttOnHttpsGroup))) {
                assertThatThrownBy(bridge::start).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("not \"mqtt tcp://127.0.0.1:1 topic=teltonika/{imei}/records\"");
            }
        }
    }

    private static BridgeSettings rebind(BridgeSettings s) {
        return new BridgeSettings(s.sink(), s.redisUrl(), s.namespace(), s.group(), s.consumer(), s.from(),
                s.partitions(), s.batch(), s.lanes(), s.claimIdle(), s.leaseTtl(), s.maxBackoff(), s.shutdownGrace(),
                s.deadLetterMax(), s.httpHost(), s.httpPort(), s.kafka(), s.http(), s.mqtt(), true);
    }
}
