package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Optional;
import org.fleetpipe.teltonika.bridge.stream.GroupStart;
import org.fleetpipe.teltonika.bridge.stream.StreamKeys;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/** {@code --from}: a sink that lost data gets a past period again; a period already trimmed is refused. */
@WithRedis
class ReplayIT {

    @Test
    void from_movesAnExistingGroupBack_andThePeriodIsDeliveredAgain(RedisFixture fixture) throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect();
             RecordingHttpSink endpoint = new RecordingHttpSink()) {
            RedisCommands<String, String> redis = connection.sync();
            TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
            BridgeSettings first = BridgeSettingsFixture.http(fixture.uri(), "b1", endpoint.url());
            String replayFrom;
            try (Bridge bridge = new Bridge(first, BridgeMain.sink(first))) {
                bridge.start();
                entries.addFleet(5, 10, 0);
                replayFrom = entries.add(0, 10);
                entries.addFleet(5, 10, 11);
                await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() == 101);
            }
            BridgeSettings replay = withFrom(first, replayFrom);
            try (Bridge bridge = new Bridge(replay, BridgeMain.sink(replay))) {
                bridge.start();
                // From replayFrom on: itself and the 50 after it, again.
                await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.accepted() == 101 + 51);
            }
            assertThat(endpoint.distinct()).isEqualTo(101);
        }
    }

    @Test
    void from_beforeTheOldestEntryLeft_isRefused_sayingWhatIsLeft(RedisFixture fixture) {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
            String gone = entries.add(1, 1);
            entries.add(1, 2);
            redis.xdel("telemetry", gone);

            assertThatThrownBy(() -> GroupStart.apply(redis, new StreamKeys("", "late"), Optional.of(gone)))
                    .hasMessageContaining("before the oldest entry still in the stream");
            assertThat(GroupStart.apply(redis, new StreamKeys("", "late"), Optional.of("0-0")))
                    .contains("created at=0-0");
        }
    }

    private static BridgeSettings withFrom(BridgeSettings s, String from) {
        return new BridgeSettings(s.sink(), s.redisUrl(), s.namespace(), s.group(), s.consumer(), Optional.of(from),
                s.partitions(), s.batch(), s.lanes(), s.claimIdle(), s.leaseTtl(), s.maxBackoff(), s.shutdownGrace(),
                s.deadLetterMax(),
                s.httpHost(), s.httpPort(), s.kafka(), s.http(), s.mqtt());
    }
}
