package org.fleetpipe.teltonika.bridge.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import org.fleetpipe.teltonika.redis.RedisEndpoint;
import org.fleetpipe.teltonika.redis.RespSocket;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The group's replies read into entries whose fields stay bytes (EntryReplyOutput, issue 41 item
 * 4) hold what Lettuce's own map-per-entry reading held, over RESP2 and RESP3 and over the bridge's
 * own socket (RespSocket), from a real Redis.
 */
@WithRedis
class GroupReaderIT {

    private static final StreamKeys KEYS = new StreamKeys("", "g");
    private static final RecordPayload PAYLOAD = new RecordPayload(IoDictionary.load());

    static Map<String, String> record(int device, int seq) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("schema", "2");
        fields.put("imei", String.format("35209308%07d", device));
        fields.put("codec", "8E");
        fields.put("ts", Long.toString(1_700_000_000_000L + seq));
        fields.put("rx", Long.toString(1_700_000_000_500L + seq));
        fields.put("priority", "0");
        fields.put("lat", "54.6872383");
        fields.put("lon", "-25.28");
        fields.put("alt", "120");
        fields.put("angle", "270");
        fields.put("sat", "9");
        fields.put("speed", Integer.toString(seq));
        fields.put("event", "0");
        fields.put("io", "{\"21\":3,\"66\":24079,\"78\":18446744073709551615,\"385\":\"0a1b\"}");
        fields.put("valid", "1");
        fields.put("instance", seq % 2 == 0 ? "ingest-é-" + seq : "");
        if (seq % 3 == 0) {
            fields.put("x-not-in-the-contract", "kept for the dead letters");
        }
        return fields;
    }

    /** How the reader reaches Redis: Lettuce over RESP2 or RESP3, or the bridge's own socket (RESP2). */
    enum Transport {
        LETTUCE_RESP2(ProtocolVersion.RESP2), LETTUCE_RESP3(ProtocolVersion.RESP3), SOCKET(ProtocolVersion.RESP2);

        /** The protocol of the Lettuce client the test writes with (and reads with, but for SOCKET). */
        final ProtocolVersion protocol;

        Transport(ProtocolVersion protocol) {
            this.protocol = protocol;
        }
    }

    private final List<RespSocket> sockets = new ArrayList<>();

    @AfterEach
    void closeSockets() {
        sockets.forEach(RespSocket::close);
    }

    private GroupReader.Reads reads(Transport transport, RedisCommands<String, String> redis, RedisFixture fixture) {
        if (transport != Transport.SOCKET) {
            return redis::dispatch;
        }
        RespSocket socket = new RespSocket(RedisEndpoint.of(fixture.uri()).orElseThrow(), Duration.ofSeconds(5),
                "group-reader-it");
        sockets.add(socket);
        return socket::dispatch;
    }

    private GroupReader reader(Transport transport, RedisCommands<String, String> redis, RedisFixture fixture) {
        return new GroupReader(reads(transport, redis, fixture), redis, false, KEYS, "c");
    }

    private static RedisClient client(RedisFixture fixture, ProtocolVersion protocol) {
        RedisClient client = RedisClient.create(fixture.uri());
        client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        return client;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void newEntries_ofTwoStreams_holdWhatLettucesMapsHeld(Transport transport, RedisFixture fixture) {
        RedisClient client = client(fixture, transport.protocol);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            for (String stream : List.of("s1", "s2")) {
                redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, "0"), "g", XGroupCreateArgs.Builder.mkstream());
            }
            for (int seq = 0; seq < 7; seq++) {
                redis.xadd(seq < 4 ? "s1" : "s2", record(seq % 3, seq));
            }
            GroupReader reader = reader(transport, redis, fixture);

            List<StreamEntry> entries = reader.next(List.of("s1", "s2"), 100, Duration.ofMillis(10));

            List<StreamMessage<String, String>> written = new java.util.ArrayList<>(
                    redis.xrange("s1", io.lettuce.core.Range.create("-", "+")));
            written.addAll(redis.xrange("s2", io.lettuce.core.Range.create("-", "+")));
            assertThat(entries).hasSize(7);
            for (int i = 0; i < 7; i++) {
                StreamEntry entry = entries.get(i);
                StreamMessage<String, String> message = written.get(i);
                assertThat(entry.stream()).isEqualTo(i < 4 ? "s1" : "s2");
                assertThat(entry.id()).isEqualTo(message.getId());
                assertThat(entry.imei()).isEqualTo(message.getBody().get("imei"));
                assertThat(entry.body().toMap()).containsExactlyEntriesOf(message.getBody());
                assertThat(PAYLOAD.toJson(entry.id(), entry.body(), "FMB920"))
                        .isEqualTo(PAYLOAD.toJson(message.getId(), message.getBody(), "FMB920"));
            }
            assertThat(reader.next(List.of("s1", "s2"), 100, Duration.ofMillis(10))).as("nothing new").isEmpty();
        } finally {
            client.shutdown();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void takeOver_pagesThroughWhatAnotherConsumerHeld_leavingOutDeletedEntries(Transport transport,
                                                                              RedisFixture fixture) {
        RedisClient client = client(fixture, transport.protocol);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.xgroupCreate(XReadArgs.StreamOffset.from("s1", "0"), "g", XGroupCreateArgs.Builder.mkstream());
            for (int seq = 0; seq < 5; seq++) {
                redis.xadd("s1", record(seq, seq));
            }
            List<StreamMessage<String, String>> held = redis.xreadgroup(Consumer.from("g", "other"),
                    XReadArgs.Builder.count(10), XReadArgs.StreamOffset.lastConsumed("s1"));
            redis.xdel("s1", held.get(1).getId());
            GroupReader reader = reader(transport, redis, fixture);

            GroupReader.ClaimPage first = reader.takeOver("s1", "0-0", 2);
            GroupReader.ClaimPage rest = reader.takeOver("s1", first.next(), 10);

            assertThat(first.last()).isFalse();
            assertThat(rest.last()).isTrue();
            List<StreamEntry> claimed = new java.util.ArrayList<>(first.entries());
            claimed.addAll(rest.entries());
            List<StreamEntry> records = claimed.stream().filter(entry -> !entry.body().isEmpty()).toList();
            assertThat(records).extracting(StreamEntry::id).containsExactly(held.get(0).getId(),
                    held.get(2).getId(), held.get(3).getId(), held.get(4).getId());
            assertThat(claimed).allMatch(entry -> entry.stream().equals("s1"));
            assertThat(records.get(1).body().toMap()).containsExactlyEntriesOf(held.get(2).getBody());
            // Redis 7 takes a deleted entry off the pending list as XAUTOCLAIM meets it; 6.2 moves it
            // to the claiming consumer, nil in its place: the reader gives it back as trimmed (to
            // acknowledge), and it stays pending until then.
            boolean seven = majorVersion(redis) >= 7;
            assertThat(claimed).filteredOn(entry -> entry.body().isEmpty()).extracting(StreamEntry::id)
                    .containsExactlyElementsOf(seven ? List.of() : List.of(held.get(1).getId()));
            assertThat(reader.ownPendingCount("s1")).isEqualTo(seven ? 4 : 5);
        } finally {
            client.shutdown();
        }
    }

    /**
     * Whatever the version, acknowledging what a takeover gave back leaves nothing pending: on 6.2 a
     * deleted entry it claimed would otherwise stay on the list for good, named by no reply.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void takeOver_thenAcknowledgingWhatItGave_leavesNothingPending_evenForEntriesDeletedMeanwhile(
            Transport transport, RedisFixture fixture) {
        RedisClient client = client(fixture, transport.protocol);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.xgroupCreate(XReadArgs.StreamOffset.from("s1", "0"), "g", XGroupCreateArgs.Builder.mkstream());
            for (int seq = 0; seq < 450; seq++) {
                redis.xadd("s1", record(seq % 7, seq));
            }
            List<StreamMessage<String, String>> held = redis.xreadgroup(Consumer.from("g", "other"),
                    XReadArgs.Builder.count(1000), XReadArgs.StreamOffset.lastConsumed("s1"));
            // Gone since read, as the servers' trimming does while the group lags: some in each page.
            for (int i = 0; i < held.size(); i += 9) {
                redis.xdel("s1", held.get(i).getId());
            }
            GroupReader reader = reader(transport, redis, fixture);

            String cursor = "0-0";
            List<StreamEntry> given = new ArrayList<>();
            do {
                GroupReader.ClaimPage page = reader.takeOver("s1", cursor, 100);
                given.addAll(page.entries());
                cursor = page.next();
            } while (!"0-0".equals(cursor));
            for (StreamEntry entry : given) {
                redis.xack("s1", "g", entry.id());
            }

            assertThat(given.stream().filter(entry -> !entry.body().isEmpty()).count()).isEqualTo(450 - 50);
            assertThat(reader.ownPendingCount("s1")).isZero();
            assertThat(redis.xpending("s1", "g").getCount()).isZero();
        } finally {
            client.shutdown();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void claimAbandoned_takesOnlyEntriesIdleLongEnough(Transport transport, RedisFixture fixture)
            throws InterruptedException {
        RedisClient client = client(fixture, transport.protocol);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            for (String stream : List.of("s1", "s2")) {
                redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, "0"), "g", XGroupCreateArgs.Builder.mkstream());
                redis.xadd(stream, record(1, 1));
                redis.xadd(stream, record(2, 2));
            }
            redis.xreadgroup(Consumer.from("g", "other"), XReadArgs.Builder.count(10),
                    XReadArgs.StreamOffset.lastConsumed("s1"), XReadArgs.StreamOffset.lastConsumed("s2"));
            GroupReader reader = reader(transport, redis, fixture);

            assertThat(reader.claimAbandoned(List.of("s1", "s2"), Duration.ofMinutes(1), 10)).isEmpty();
            Thread.sleep(50);
            List<StreamEntry> claimed = reader.claimAbandoned(List.of("s1", "s2"), Duration.ofMillis(20), 10);

            assertThat(claimed).hasSize(4);
            assertThat(claimed).extracting(StreamEntry::stream).containsExactly("s1", "s1", "s2", "s2");
            assertThat(claimed).extracting(StreamEntry::imei).containsExactly("352093080000001", "352093080000002",
                    "352093080000001", "352093080000002");
        } finally {
            client.shutdown();
        }
    }

    /**
     * An entry deleted while pending comes back without fields when the pending history is read
     * (and from XAUTOCLAIM before Redis 7): a trimmed entry, its body empty, its id kept to acknowledge.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void anEntryWithoutFields_isATrimmedEntry(Transport transport, RedisFixture fixture) {
        RedisClient client = client(fixture, transport.protocol);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.xgroupCreate(XReadArgs.StreamOffset.from("s1", "0"), "g", XGroupCreateArgs.Builder.mkstream());
            String gone = redis.xadd("s1", record(1, 1));
            String kept = redis.xadd("s1", record(2, 2));
            redis.xreadgroup(Consumer.from("g", "c"), XReadArgs.StreamOffset.lastConsumed("s1"));
            redis.xdel("s1", gone);

            List<StreamEntry> history = reads(transport, redis, fixture).dispatch(CommandType.XREADGROUP, EntryReplyOutput.read(),
                    new CommandArgs<>(StringCodec.UTF8).add("GROUP").add("g").add("c").add("STREAMS").addKey("s1")
                            .add("0"));

            assertThat(history).extracting(StreamEntry::id).containsExactly(gone, kept);
            assertThat(history.get(0).body().isEmpty()).isTrue();
            assertThat(history.get(0).imei()).isEmpty();
            assertThat(history.get(1).body().toMap()).isEqualTo(record(2, 2));
        } finally {
            client.shutdown();
        }
    }

    private static int majorVersion(RedisCommands<String, String> redis) {
        String info = redis.info("server");
        int at = info.indexOf("redis_version:") + "redis_version:".length();
        return Integer.parseInt(info.substring(at, info.indexOf('.', at)));
    }
}
