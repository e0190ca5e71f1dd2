package org.fleetpipe.teltonika.bridge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Consumer;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.bridge.devices.RedisModelLookup;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.stream.BridgeDeadLetters;
import org.fleetpipe.teltonika.bridge.stream.EntryAcks;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;
import org.fleetpipe.teltonika.bridge.stream.StreamKeys;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.EntryBody;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/** A lane keeps a device's order through retries, and survives a sink that throws. */
@WithRedis
class LaneIT {

    private static final String A = "352093081452251";
    private static final String B = "490154203237518";

    /** First call: device A's second record fails; later calls take everything. Records each call. */
    private static final class FlakySink implements Sink {
        final List<List<String>> calls = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger throwsLeft = new AtomicInteger();

        @Override
        public String name() {
            return "flaky";
        }

        @Override
        public List<Outcome> deliver(List<OutboundRecord> batch) {
            if (throwsLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("client closed");
            }
            calls.add(batch.stream().map(r -> r.imei().substring(0, 1) + r.entryId()).toList());
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                boolean failOnce = calls.size() == 1 && i == 1;
                outcomes.add(failOnce ? Outcome.retry("broker busy") : Outcome.DELIVERED);
            }
            return outcomes;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aRetriedRecord_keepsItsDevicesLaterRecordsBehindIt_otherDevicesGoOn(RedisFixture fixture) throws Exception {
        FlakySink sink = new FlakySink();
        runBatch(fixture, sink, List.of(A, A, B, A));

        // Call 1: A1 ok, A2 retry, B1 ok, A3 ok but behind A2: sent again (a duplicate) after it.
        assertThat(sink.calls).hasSize(2);
        assertThat(sink.calls.get(1)).hasSize(2).allMatch(id -> id.startsWith("3"));
    }

    @Test
    void aSinkThatThrows_isRetried_notALaneThatDies(RedisFixture fixture) throws Exception {
        FlakySink sink = new FlakySink();
        sink.throwsLeft.set(2);
        runBatch(fixture, sink, List.of(B, B));

        assertThat(sink.calls).isNotEmpty();
    }

    private static void runBatch(RedisFixture fixture, Sink sink, List<String> imeis) throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            StreamKeys keys = new StreamKeys("", "g");
            redis.xgroupCreate(XReadArgs.StreamOffset.from("telemetry", "0-0"), "g",
                    io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
            long ts = 1_700_000_000_000L;
            for (String imei : imeis) {
                redis.xadd("telemetry", Map.ofEntries(Map.entry("schema", "2"), Map.entry("imei", imei),
                        Map.entry("codec", "8"), Map.entry("ts", Long.toString(ts += 1000)), Map.entry("rx", "1"),
                        Map.entry("priority", "0"), Map.entry("lat", "0"), Map.entry("lon", "0"),
                        Map.entry("alt", "0"), Map.entry("angle", "0"), Map.entry("sat", "0"),
                        Map.entry("speed", "0"), Map.entry("event", "0"), Map.entry("io", "{}")));
            }
            HeldEntries held = new HeldEntries();
            BridgeMetrics metrics = new BridgeMetrics(new SimpleMeterRegistry(), sink.name(), "g", held::size);
            DeviceLanes lanes = new DeviceLanes(1, 10, sink,
                    new RecordMaker(new RecordPayload(IoDictionary.empty()),
                            new DeviceModelCache(new RedisModelLookup(redis, keys.deviceModels()))),
                    new EntryAcks(redis, keys, "c"), new BridgeDeadLetters(connection.async(), Duration.ofSeconds(10), keys, 100),
                    new Backoff(Duration.ofMillis(10), Duration.ofMillis(50)), held, metrics);
            for (var message : redis.xreadgroup(Consumer.from("g", "c"), XReadArgs.Builder.count(100),
                    XReadArgs.StreamOffset.lastConsumed("telemetry"))) {
                lanes.submit(new StreamEntry(message.getStream(), message.getId(), EntryBody.of(message.getBody())), () -> true);
            }
            // Started once every entry is queued: the first batch holds them all.
            lanes.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> redis.xpending("telemetry", "g").getCount() == 0);
            lanes.stop(Duration.ofSeconds(1));
        }
    }
}
