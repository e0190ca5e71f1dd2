package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * trim-stream.lua on a real Redis: a count cap while nobody reads, and once groups exist never an
 * entry a group still needs, whatever the length.
 */
@WithRedis
class StreamRetentionIT {

    /** The passes are called directly here; the periodic jobs never start. */
    private static final PeriodicJobs JOBS = new PeriodicJobs("retention-test", 1);

    private static final String STREAM = "telemetry";

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
    }

    @AfterEach
    void disconnect() {
        connection.close();
    }

    private StreamRetention retention(long maxLenWithoutGroups, RetentionMode mode) {
        return retention(maxLenWithoutGroups, mode, Duration.ZERO);
    }

    private StreamRetention retention(long maxLenWithoutGroups, RetentionMode mode, Duration minAge) {
        StreamRetentionSettings settings = new StreamRetentionSettings(maxLenWithoutGroups, mode, minAge,
                Duration.ofSeconds(1), 0, 0.85, Duration.ofSeconds(60), 100_000, 0.5, Duration.ofMinutes(5),
                Duration.ofMinutes(30));
        return new StreamRetention(connection.async(), new IngestKeys(new RedisKeys("")), settings,
                new TelemetryBackpressure((imei, packet, rx, connection, loop) -> null, settings, 10), IngestionMetrics.noop(),
                Duration.ofSeconds(5), JOBS);
    }

    private List<String> add(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(redis.xadd(STREAM, Map.of("n", Integer.toString(i))));
        }
        return ids;
    }

    private List<StreamMessage<String, String>> read(String group, int count) {
        return redis.xreadgroup(Consumer.from(group, "c1"), XReadArgs.Builder.count(count),
                XReadArgs.StreamOffset.lastConsumed(STREAM));
    }

    private void ack(String group, List<StreamMessage<String, String>> messages) {
        redis.xack(STREAM, group, messages.stream().map(StreamMessage::getId).toArray(String[]::new));
    }

    private String oldestId() {
        return redis.xrange(STREAM, Range.create("-", "+"), Limit.from(1)).get(0).getId();
    }

    @Test
    void noGroup_thenCappedByCountLikeMaxLen() {
        add(1000);

        StreamSnapshot s = retention(300, RetentionMode.ACKNOWLEDGED).pass();

        // "~" trims whole nodes of 100 entries: never below the cap, at most a node above it.
        assertThat(s.length()).isBetween(300L, 400L);
        assertThat(s.trimmed()).isEqualTo(1000 - s.length());
        assertThat(s.groups()).isEmpty();
    }

    @Test
    void groupThatReadNothing_thenNothingTrimmedFarPastTheCountCap() {
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "slow", XGroupCreateArgs.Builder.mkstream());
        add(1000);

        StreamSnapshot s = retention(100, RetentionMode.ACKNOWLEDGED).pass();

        assertThat(s.length()).isEqualTo(1000);
        assertThat(s.trimmed()).isZero();
        GroupPosition slow = s.groups().get(0);
        assertThat(slow.name()).isEqualTo("slow");
        assertThat(slow.lag(s)).as("exact or estimated: the group's next entry is the oldest").isEqualTo(1000);
        assertThat(slow.pending()).isZero();
        assertThat(slow.nextUndeliveredId()).isEqualTo(oldestId());
    }

    @Test
    void acknowledgedMode_thenTrimsWhatTheGroupAcknowledgedAndKeepsItsPending() {
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "g", XGroupCreateArgs.Builder.mkstream());
        List<String> ids = add(1000);
        ack("g", read("g", 500));
        // Delivered, never acknowledged: a consumer died holding these.
        List<StreamMessage<String, String>> held = read("g", 300);

        StreamSnapshot s = retention(0, RetentionMode.ACKNOWLEDGED).pass();

        assertThat(oldestId()).as("the oldest pending entry is kept").isLessThanOrEqualTo(held.get(0).getId());
        assertThat(s.length()).isBetween(500L, 600L);
        GroupPosition g = s.groups().get(0);
        assertThat(g.pending()).isEqualTo(300);
        assertThat(g.oldestPendingId()).isEqualTo(ids.get(500));
        assertThat(g.lastDeliveredId()).isEqualTo(ids.get(799));
        assertThat(g.nextUndeliveredId()).isEqualTo(ids.get(800));
        // Redis 7 counts; 6.2 does not, and the estimate from entry times is rough for a burst like this one.
        if (g.lagExact()) {
            assertThat(g.lag(s)).isEqualTo(200);
        } else {
            assertThat(g.lag(s)).isBetween(1L, s.length());
        }
        // Acknowledging them lets them go at the next pass.
        ack("g", held);
        assertThat(retention(0, RetentionMode.ACKNOWLEDGED).pass().length()).isBetween(200L, 300L);
        assertThat(redis.xrange(STREAM, Range.create(ids.get(800), "+"))).hasSize(200);
    }

    @Test
    void deliveredMode_thenTrimsPendingEntriesToo() {
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "g", XGroupCreateArgs.Builder.mkstream());
        List<String> ids = add(1000);
        read("g", 800);

        StreamSnapshot s = retention(0, RetentionMode.DELIVERED).pass();

        assertThat(s.length()).isBetween(200L, 300L);
        assertThat(redis.xrange(STREAM, Range.create(ids.get(800), "+"))).as("nothing undelivered trimmed").hasSize(200);
    }

    @Test
    void twoGroups_thenTheSlowerOneSetsTheFloor() {
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "fast", XGroupCreateArgs.Builder.mkstream());
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "slow");
        List<String> ids = add(1000);
        ack("fast", read("fast", 1000));
        ack("slow", read("slow", 250));

        StreamSnapshot s = retention(10, RetentionMode.ACKNOWLEDGED).pass();

        assertThat(redis.xrange(STREAM, Range.create(ids.get(250), "+"))).hasSize(750);
        assertThat(s.length()).isBetween(750L, 850L);
        assertThat(s.groups()).extracting(GroupPosition::name).containsExactlyInAnyOrder("fast", "slow");
        GroupPosition fast = s.groups().stream().filter(g -> g.name().equals("fast")).findFirst().orElseThrow();
        assertThat(fast.lag(s)).isZero();
        assertThat(fast.nextUndeliveredId()).isEmpty();
        assertThat(fast.oldestUndeliveredAgeMs(System.currentTimeMillis())).isZero();
    }

    @Test
    void groupCreatedAtTheEnd_thenEverythingBeforeItMayGo() {
        add(500);
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "$"), "late");
        List<String> after = add(100);

        StreamSnapshot s = retention(0, RetentionMode.ACKNOWLEDGED).pass();

        assertThat(redis.xrange(STREAM, Range.create(after.get(0), "+"))).hasSize(100);
        assertThat(s.length()).isBetween(100L, 200L);
    }

    @Test
    void moreToTrimThanOneCallMay_thenThePassCallsAgain() {
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "g", XGroupCreateArgs.Builder.mkstream());
        int total = StreamRetention.TRIM_LIMIT * 2 + 5_000;
        for (int i = 0; i < total; i += 5_000) {
            // Pipelined in the Redis server's own loop: one script adds 5,000 entries.
            redis.eval("for i = 1, 5000 do redis.call('XADD', KEYS[1], '*', 'n', i) end", io.lettuce.core.ScriptOutputType
                    .STATUS, STREAM);
        }
        // The group has read everything (as if its consumers had read and acknowledged it all).
        redis.xgroupSetid(XReadArgs.StreamOffset.latest(STREAM), "g");

        StreamSnapshot s = retention(0, RetentionMode.ACKNOWLEDGED).pass();

        assertThat(s.trimmed()).as("three calls' worth in one pass").isGreaterThan(StreamRetention.TRIM_LIMIT * 2L);
        assertThat(s.length()).isLessThan(200);
    }

    @Test
    void minAge_thenEntriesEveryGroupIsDoneWithStayUntilThatOld() {
        redis.xgroupCreate(XReadArgs.StreamOffset.from(STREAM, "0"), "g", XGroupCreateArgs.Builder.mkstream());
        // Entries with ids (Redis's clock) of 2 hours and of 1 minute ago.
        long now = Long.parseLong(redis.time().get(0)) * 1000;
        for (int i = 0; i < 300; i++) {
            redis.xadd(STREAM, new XAddArgs().id((now - 7_200_000) + "-" + i), Map.of("n", "old"));
        }
        for (int i = 0; i < 300; i++) {
            redis.xadd(STREAM, new XAddArgs().id((now - 60_000) + "-" + i), Map.of("n", "recent"));
        }
        redis.xgroupSetid(XReadArgs.StreamOffset.latest(STREAM), "g");

        StreamSnapshot s = retention(0, RetentionMode.ACKNOWLEDGED, Duration.ofHours(1)).pass();

        assertThat(s.length()).as("the hour-old window kept, read or not").isBetween(300L, 400L);
        assertThat(redis.xrange(STREAM, Range.create((now - 60_000) + "-0", "+"))).hasSize(300);
        assertThat(retention(0, RetentionMode.ACKNOWLEDGED, Duration.ofSeconds(30)).pass().length()).isZero();
    }

    @Test
    void redisMemory_thenReportedWithItsMaxmemory() {
        String before = redis.configGet("maxmemory").get("maxmemory");
        try {
            redis.configSet("maxmemory", "2gb");
            add(10);

            StreamSnapshot s = retention(0, RetentionMode.ACKNOWLEDGED).pass();

            assertThat(s.maxMemory()).isEqualTo(2L * 1024 * 1024 * 1024);
            assertThat(s.usedMemory()).isPositive();
            assertThat(s.memoryFraction()).isBetween(0.0001, 0.5);
        } finally {
            redis.configSet("maxmemory", before);
        }
    }

    @Test
    void noStream_thenEmptySnapshot() {
        StreamSnapshot s = retention(10, RetentionMode.ACKNOWLEDGED).pass();

        assertThat(s.length()).isZero();
        assertThat(s.groups()).isEmpty();
        assertThat(s.firstId()).isEmpty();
    }
}
