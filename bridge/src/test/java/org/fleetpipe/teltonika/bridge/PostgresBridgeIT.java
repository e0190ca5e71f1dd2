package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL sink against a real PostgreSQL, one server for the class, a table per test: every
 * record in the table once, across a refused row, a replay, the database stopped for 10 s and the
 * bridge killed with SIGKILL.
 */
@WithRedis
class PostgresBridgeIT {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresBridgeIT.class);
    private static InProcessPostgres postgres;

    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;
    private final ExecutorService writer = Executors.newSingleThreadExecutor();

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = new InProcessPostgres();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        postgres.close();
    }

    @BeforeEach
    void connect(RedisFixture fixture) {
        connection = fixture.client().connect();
        redis = connection.sync();
    }

    @AfterEach
    void disconnect() {
        writer.shutdownNow();
        connection.close();
    }

    @Test
    void everyRecordIsInTheTableOnce_inTypedColumns_aServerSideCopySkipped_theTableCreatedByTheBridge(
            RedisFixture fixture) throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.postgres(fixture.uri(), "p1", postgres.url(), "t_once");
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();
            new TelemetryEntries(redis, "telemetry").addFleet(50, 40, 0);

            await().atMost(Duration.ofSeconds(30)).until(() -> postgres.count("SELECT count(*) FROM t_once") == 2000
                    && pending() == 0);
            assertThat(postgres.count("SELECT count(DISTINCT id) FROM t_once")).isEqualTo(2000);
            assertThat(postgres.count("SELECT count(DISTINCT (imei, ts)) FROM t_once")).isEqualTo(2000);
            assertThat(bridge.registry().find("teltonika_bridge_delivered").counter().count()).isEqualTo(2000);
            assertThat(redis.xlen("dlq:bridge:postgres")).isZero();

            // A copy the servers stored twice (TELEMETRY.md, "Duplicates": another entry, rx, instance
            // and valid) is skipped; another record of the same device and time is kept.
            Map<String, String> copy = TelemetryEntries.record(7, 5);
            copy.put("rx", "1800000000000");
            copy.put("instance", "ingest-test-2");
            copy.put("valid", "0");
            redis.xadd("telemetry", copy);
            Map<String, String> sameTime = TelemetryEntries.record(7, 5);
            sameTime.put("speed", "55");
            redis.xadd("telemetry", sameTime);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.registry().find("teltonika_bridge_delivered")
                    .counter().count() == 2002 && pending() == 0);
            assertThat(postgres.count("SELECT count(*) FROM t_once")).isEqualTo(2001);
            assertThat(postgres.count("SELECT count(*) FROM t_once WHERE imei = '" + TelemetryEntries.imei(7)
                    + "' AND ts = to_timestamp(1700000005) AND speed = 54 AND valid AND rx = to_timestamp(1700000005.5)"))
                    .as("the first copy kept").isEqualTo(1);
        }
        try (Connection db = postgres.connect(); Statement statement = db.createStatement();
             ResultSet row = statement.executeQuery("SELECT imei, ts, rx, codec, priority, lat, lon, alt, angle, sat,"
                     + " speed, event, gen, valid, io->>'66', io_named, id FROM t_once WHERE imei = '"
                     + TelemetryEntries.imei(7) + "' AND ts = to_timestamp(1700000003)")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1)).isEqualTo(TelemetryEntries.imei(7));
            assertThat(row.getObject(2, OffsetDateTime.class).toInstant()).isEqualTo(Instant.ofEpochMilli(1_700_000_003_000L));
            assertThat(row.getObject(3, OffsetDateTime.class).toInstant()).isEqualTo(Instant.ofEpochMilli(1_700_000_003_500L));
            assertThat(row.getString(4)).isEqualTo("8E");
            assertThat(row.getInt(5)).isZero();
            assertThat(row.getDouble(6)).isEqualTo(54.6872383);
            assertThat(row.getDouble(7)).isEqualTo(25.28);
            assertThat(List.of(row.getInt(8), row.getInt(9), row.getInt(10), row.getInt(11), row.getInt(12)))
                    .containsExactly(120, 270, 9, 54, 0);
            assertThat(row.getObject(13)).as("gen: Codec 16 only").isNull();
            assertThat(row.getBoolean(14)).isTrue();
            assertThat(row.getString(15)).isEqualTo("24079");
            assertThat(row.getObject(16)).as("no model known").isNull();
            assertThat(row.getString(17)).matches("\\d+-\\d+");
        }
    }

    @Test
    void rowsTheDatabaseRefuses_areTheOnlyDeadLetters_everyOtherRecordInTheTableOnce(RedisFixture fixture)
            throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.postgres(fixture.uri(), "p1", postgres.url(), "t_refused");
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();
            // A constraint other than the record key, as a team adds one to its own table.
            postgres.execute("ALTER TABLE t_refused ADD CONSTRAINT speed_plausible CHECK (speed < 300)");
            TelemetryEntries entries = new TelemetryEntries(redis, "telemetry");
            entries.addFleet(10, 10, 0);
            Map<String, String> tooFast = TelemetryEntries.record(3, 10);
            tooFast.put("speed", "500");
            String refusedByCheck = redis.xadd("telemetry", tooFast);
            Map<String, String> tooHigh = TelemetryEntries.record(4, 10);
            tooHigh.put("alt", "99999999999");
            String outOfRange = redis.xadd("telemetry", tooHigh);
            entries.addFleet(10, 10, 11);

            await().atMost(Duration.ofSeconds(30)).until(() -> pending() == 0
                    && postgres.count("SELECT count(*) FROM t_refused") == 200);
            List<StreamMessage<String, String>> dead = redis.xrange("dlq:bridge:postgres", Range.create("-", "+"));
            assertThat(dead).extracting(m -> m.getBody().get("dlq_id")).containsExactlyInAnyOrder(refusedByCheck,
                    outOfRange);
            Map<String, String> reasons = dead.stream().collect(Collectors.toMap(m -> m.getBody().get("dlq_id"),
                    m -> m.getBody().get("dlq_reason")));
            assertThat(reasons.get(refusedByCheck)).contains("postgres refused").contains("23514");
            assertThat(reasons.get(outOfRange)).contains("22003");
            assertThat(postgres.count("SELECT count(DISTINCT id) FROM t_refused")).isEqualTo(200);
            assertThat(postgres.count("SELECT count(*) FROM t_refused WHERE imei = '" + TelemetryEntries.imei(3)
                    + "' AND ts > to_timestamp(1700000010)")).as("the device's records after its refused one").isEqualTo(10);
            assertThat(bridge.registry().find("teltonika_bridge_sink_refusing").gauge().value()).isZero();
        }
    }

    @Test
    void aTableOfAnotherShape_refusesTheStart_namingEachDifference_beforeRedisIsTouched(RedisFixture fixture)
            throws Exception {
        postgres.execute("CREATE TABLE t_other (imei text NOT NULL, ts timestamptz NOT NULL, lat text,"
                + " note text NOT NULL)");
        BridgeSettings settings = BridgeSettingsFixture.postgres(fixture.uri(), "p1", postgres.url(), "t_other");
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            assertThatThrownBy(bridge::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table t_other exists with another shape")
                    .hasMessageContaining("column lat is text, not double precision")
                    .hasMessageContaining("column note is NOT NULL without a default")
                    .hasMessageContaining("column record_key uuid is missing")
                    .hasMessageContaining("no unique key (imei, ts, record_key)");
        }
        assertThat(redis.keys("*")).as("no group, no binding").isEmpty();
    }

    @Test
    void aReplayFrom0_deliversEverythingAgain_andAddsNoRow(RedisFixture fixture) throws Exception {
        BridgeSettings first = BridgeSettingsFixture.postgres(fixture.uri(), "p1", postgres.url(), "t_replay");
        try (Bridge bridge = new Bridge(first, BridgeMain.sink(first))) {
            bridge.start();
            new TelemetryEntries(redis, "telemetry").addFleet(20, 10, 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> postgres.count("SELECT count(*) FROM t_replay") == 200
                    && pending() == 0);
        }
        BridgeSettings replay = BridgeSettingsFixture.withFrom(first, "0");
        try (Bridge bridge = new Bridge(replay, BridgeMain.sink(replay))) {
            bridge.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.registry().find("teltonika_bridge_delivered")
                    .counter().count() == 200 && pending() == 0);
        }
        assertThat(postgres.count("SELECT count(*) FROM t_replay")).isEqualTo(200);
        assertThat(redis.xlen("dlq:bridge:postgres")).isZero();
    }

    @Test
    void postgresStoppedFor10s_whileRecordsArrive_everyRecordOnce_eachDeviceInOrder_nothingDeadLettered(
            RedisFixture fixture) throws Exception {
        BridgeSettings settings = BridgeSettingsFixture.postgres(fixture.uri(), "p1", postgres.url(), "t_outage");
        try (Bridge bridge = new Bridge(settings, BridgeMain.sink(settings))) {
            bridge.start();
            // A column of the team's own with a default is fine; it numbers the rows in commit order.
            postgres.execute("ALTER TABLE t_outage ADD COLUMN seq bigserial");
            int devices = 20;
            int rounds = 70;
            // 20 devices, 100 records a second, for 14 s: the database is away for 10 of them.
            Future<?> writing = writeSteadily(fixture, devices, rounds, 100);
            await().atMost(Duration.ofSeconds(20)).until(() -> postgres.count("SELECT count(*) FROM t_outage") >= 100);
            postgres.stop();
            long stoppedAt = System.nanoTime();
            await().pollDelay(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(11)).until(() -> true);
            long pendingWhileDown = pending();
            double failing = bridge.registry().find("teltonika_bridge_sink_failing").gauge().value();
            postgres.start();
            LOG.info("postgres was stopped for {} ms; pending at its return: {}",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt), pendingWhileDown);
            writing.get(30, TimeUnit.SECONDS);

            int total = devices * rounds;
            await().atMost(Duration.ofSeconds(40)).until(() -> postgres.countOrMinusOne(
                    "SELECT count(*) FROM t_outage") == total && pending() == 0);
            assertThat(pendingWhileDown).as("entries held unacknowledged while the database was away").isPositive();
            assertThat(failing).as("sink failing during the outage").isEqualTo(1);
            assertThat(postgres.count("SELECT count(DISTINCT id) FROM t_outage")).isEqualTo(total);
            assertThat(redis.xlen("dlq:bridge:postgres")).as("nothing dead-lettered").isZero();
            assertThat(bridge.registry().find("teltonika_bridge_retried").counter().count()).isPositive();
            for (Map.Entry<String, List<Long>> device : tsInCommitOrder("t_outage").entrySet()) {
                assertThat(device.getValue()).as(device.getKey()).hasSize(rounds).isSorted();
            }
        }
    }

    @Test
    void theBridgeKilledWith9MidStream_andStartedAgain_everyRecordOnce_everyAcknowledgedOneCommitted(
            RedisFixture fixture) throws Exception {
        String[] args = {"--sink", "postgres", "--url", postgres.url(), "--postgres-user", "postgres", "--table",
                "t_killed", "--consumer", "p-proc", "--batch", "50", "--lanes", "2", "--max-backoff", "500ms",
                "--http-port", "0", "--http-host", "127.0.0.1"};
        int devices = 20;
        int rounds = 50;
        // A backlog the bridge works through (its lanes busy at the kill), and records still arriving.
        int total = 2 * devices * rounds;
        new TelemetryEntries(redis, "telemetry").addFleet(devices, rounds, 1000);
        Future<?> writing;
        try (BridgeProcess victim = BridgeProcess.start(fixture.uri(), args)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.exists("bridge:lease:postgres") == 1);
            writing = writeSteadily(fixture, devices, rounds, 1000);
            await().atMost(Duration.ofSeconds(30)).until(() -> postgres.count("SELECT count(*) FROM t_killed") >= 300);
            // Redis refuses XACK for a moment (an ACL): each lane commits the batch it holds and then
            // retries its acknowledgement. Killed then, the bridge leaves those rows committed and their
            // entries unacknowledged, to be delivered again after the restart.
            acl("SETUSER", "default", "-xack");
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    Set<String> committedPending = pendingIds();
                    committedPending.retainAll(ids("t_killed"));
                    return !committedPending.isEmpty();
                });
                victim.kill();
            } finally {
                acl("SETUSER", "default", "+xack");
            }
        }
        Set<String> committed = ids("t_killed");
        Set<String> acknowledged = acknowledged();
        Set<String> redelivered = new java.util.HashSet<>(committed);
        redelivered.removeAll(acknowledged);
        LOG.info("at the kill: committed={} acknowledged={} committed and not acknowledged (sent again)={}",
                committed.size(), acknowledged.size(), redelivered.size());
        assertThat(committed).as("every acknowledged entry was committed first").containsAll(acknowledged);
        assertThat(redelivered).as("committed, not acknowledged at the kill: the restart sends them again")
                .isNotEmpty();
        writing.get(30, TimeUnit.SECONDS);

        try (BridgeProcess restarted = BridgeProcess.start(fixture.uri(), args)) {
            await().atMost(Duration.ofSeconds(40)).until(() -> postgres.count("SELECT count(*) FROM t_killed") == total
                    && pending() == 0);
            assertThat(postgres.count("SELECT count(DISTINCT id) FROM t_killed")).isEqualTo(total);
            assertThat(redis.xlen("dlq:bridge:postgres")).isZero();
            assertThat(restarted.isAlive()).as(restarted.output()).isTrue();
        }
    }

    private Future<?> writeSteadily(RedisFixture fixture, int devices, int rounds, int perSecond) {
        return writer.submit(() -> {
            try (StatefulRedisConnection<String, String> own = fixture.client().connect()) {
                new TelemetryEntries(own.sync(), "telemetry").addSteadily(devices, rounds, perSecond);
            }
            return null;
        });
    }

    private void acl(String... arguments) {
        io.lettuce.core.protocol.CommandArgs<String, String> args =
                new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8);
        for (String argument : arguments) {
            args.add(argument);
        }
        redis.dispatch(io.lettuce.core.protocol.CommandType.ACL,
                new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8), args);
    }

    private Set<String> pendingIds() {
        Set<String> ids = new java.util.HashSet<>();
        redis.xpending("telemetry", io.lettuce.core.Consumer.from("postgres", "p-proc"), Range.create("-", "+"),
                io.lettuce.core.Limit.from(100_000)).forEach(message -> ids.add(message.getId()));
        return ids;
    }

    private long pending() {
        return redis.xpending("telemetry", "postgres").getCount();
    }

    /** The entries of the stream the group read and acknowledged: up to its last delivered id, not pending. */
    private Set<String> acknowledged() {
        String lastDelivered = redis.xinfoGroups("telemetry").stream().map(group -> {
            List<?> fields = (List<?>) group;
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                if ("last-delivered-id".equals(String.valueOf(fields.get(i)))) {
                    return String.valueOf(fields.get(i + 1));
                }
            }
            throw new IllegalStateException("no last-delivered-id in " + fields);
        }).findFirst().orElseThrow();
        Set<String> read = redis.xrange("telemetry", Range.create("-", lastDelivered)).stream()
                .map(StreamMessage::getId).collect(Collectors.toSet());
        redis.xpending("telemetry", io.lettuce.core.Consumer.from("postgres", "p-proc"), Range.create("-", "+"),
                io.lettuce.core.Limit.from(100_000)).forEach(message -> read.remove(message.getId()));
        return read;
    }

    private static Set<String> ids(String table) throws Exception {
        Set<String> ids = new java.util.HashSet<>();
        try (Connection db = postgres.connect(); Statement statement = db.createStatement();
             ResultSet rows = statement.executeQuery("SELECT id FROM " + table)) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }

    /** Each device's record times in the order the rows were committed. */
    private static Map<String, List<Long>> tsInCommitOrder(String table) throws Exception {
        Map<String, List<Long>> times = new HashMap<>();
        try (Connection db = postgres.connect(); Statement statement = db.createStatement();
             ResultSet rows = statement.executeQuery("SELECT imei, (extract(epoch FROM ts) * 1000)::bigint FROM "
                     + table + " ORDER BY seq")) {
            while (rows.next()) {
                times.computeIfAbsent(rows.getString(1), k -> new ArrayList<>()).add(rows.getLong(2));
            }
        }
        return times;
    }
}
