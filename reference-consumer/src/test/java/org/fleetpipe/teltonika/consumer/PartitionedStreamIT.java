package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * A partitioned stream (TELEMETRY.md, "Partitions"), written here as the servers write it: each
 * device's entries in {@code telemetry:{CRC32(imei) mod 4}}. The program reads every partition in
 * one group and acknowledges each entry on its own stream; without the layout key it reads the one
 * stream {@code telemetry}.
 */
@WithRedis
class PartitionedStreamIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DEVICES = 20;
    private static final int PER_DEVICE = 15;

    static String imei(int device) {
        return String.format("35209308%07d", device);
    }

    /** Record {@code seq} of a device, with the fields the servers write (schema 2). */
    static Map<String, String> record(int device, int seq) {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("schema", "2");
        e.put("imei", imei(device));
        e.put("codec", "8E");
        e.put("ts", Long.toString(1_795_502_000_000L + seq * 1000L));
        e.put("rx", Long.toString(1_795_502_000_500L + seq * 1000L));
        e.put("priority", "0");
        e.put("lat", "54.6872383");
        e.put("lon", "25.28");
        e.put("alt", "120");
        e.put("angle", "270");
        e.put("sat", "9");
        e.put("speed", "54");
        e.put("event", "0");
        e.put("io", "{\"21\":3,\"66\":24079}");
        e.put("valid", "1");
        e.put("instance", "ingest-1");
        return e;
    }

    /** Writes the fleet, records interleaved across devices, each to its device's stream in {@code layout}. */
    private static void writeFleet(RedisCommands<String, String> redis, TelemetryLayout layout) {
        for (int seq = 0; seq < PER_DEVICE; seq++) {
            for (int device = 0; device < DEVICES; device++) {
                redis.xadd(layout.streamOf(imei(device)), record(device, seq));
            }
        }
    }

    @Test
    void theLayoutKeySaysFour_everyPartitionIsRead_andEachEntryAcknowledgedOnItsStream(RedisFixture fixture)
            throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            TelemetryLayout layout = new TelemetryLayout("telemetry", 4);
            redis.set("telemetry:partitions", "4");
            writeFleet(redis, layout);
            for (String stream : layout.streams()) {
                assertThat(redis.xlen(stream)).as("the fleet spreads over every partition: %s", stream).isPositive();
            }

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = ReferenceConsumerMain.run(new String[] {"--redis-url", fixture.uri(), "--group", "parts",
                    "--until-idle", "1s", "--block", "200ms", "--count", "50", "--output", "jsonl"}, print(out),
                    print(err));

            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
            Map<String, List<Long>> times = new HashMap<>();
            Set<String> ids = new HashSet<>();
            for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
                JsonNode entry = JSON.readTree(line);
                String imei = entry.get("imei").asText();
                times.computeIfAbsent(imei, k -> new ArrayList<>()).add(entry.get("ts").longValue());
                ids.add(layout.streamOf(imei) + " " + entry.get("id").asText());
            }
            assertThat(ids).as("every entry once").hasSize(DEVICES * PER_DEVICE);
            assertThat(times).hasSize(DEVICES);
            times.forEach((imei, ts) -> assertThat(ts).as(imei).hasSize(PER_DEVICE).isSorted());
            for (String stream : layout.streams()) {
                assertThat(redis.xpending(stream, "parts").getCount()).as("all acknowledged on %s", stream).isZero();
            }
            assertThat(redis.exists("telemetry")).as("the unpartitioned stream is not read").isZero();
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("created group parts on 4 of 4 partition streams telemetry:{0}..telemetry:{3}")
                    .contains("done: group=parts", "read=" + DEVICES * PER_DEVICE + " ", "acked=" + DEVICES * PER_DEVICE
                            + " ", "group-pending=0");
        }
    }

    @Test
    void aConsumerDiesHoldingEntriesOfEveryPartition_anotherClaimsThemFromEachStream(RedisFixture fixture)
            throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            TelemetryLayout layout = new TelemetryLayout("telemetry", 4);
            writeFleet(redis, layout);

            // No layout key: --partitions says it (a layout the servers have not written yet).
            ConsumerOptions crashed = ConsumerOptions.parse(new String[] {"--group", "g", "--consumer", "crashed",
                    "--partitions", "4", "--max-entries", "1", "--count", "5", "--progress", "0"});
            new TelemetryConsumer(redis, crashed, entry -> {
                throw new IllegalStateException("dies");
            }, print(new ByteArrayOutputStream())).run();
            for (String stream : layout.streams()) {
                assertThat(redis.xpending(stream, "g").getCount()).as(stream).isEqualTo(5);
            }

            Map<String, String> read = new HashMap<>();
            ConsumerOptions survivor = ConsumerOptions.parse(new String[] {"--group", "g", "--consumer", "survivor",
                    "--partitions", "4", "--claim-idle", "500ms", "--block", "200ms", "--progress", "0",
                    "--until-idle", "2s"});
            ConsumerTotals totals = new TelemetryConsumer(redis, survivor,
                    entry -> read.put(entry.getStream() + " " + entry.getId(), entry.getBody().get("imei")),
                    print(new ByteArrayOutputStream())).run();

            assertThat(totals.claimed()).isEqualTo(20);
            assertThat(read).hasSize(DEVICES * PER_DEVICE);
            read.forEach((entry, imei) -> assertThat(entry).startsWith(layout.streamOf(imei) + " "));
            for (String stream : layout.streams()) {
                assertThat(redis.xpending(stream, "g").getCount()).as(stream).isZero();
            }
        }
    }

    @Test
    void withoutTheLayoutKey_theOneStreamTelemetryIsRead(RedisFixture fixture) throws Exception {
        try (StatefulRedisConnection<String, String> connection = fixture.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            writeFleet(redis, new TelemetryLayout("telemetry", 1));

            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = ReferenceConsumerMain.run(new String[] {"--redis-url", fixture.uri(), "--group", "plain",
                    "--until-idle", "1s", "--block", "200ms"}, print(new ByteArrayOutputStream()), print(err));

            assertThat(exit).isZero();
            assertThat(redis.xpending("telemetry", "plain").getCount()).isZero();
            assertThat(redis.exists("telemetry:{0}")).as("no partition stream made").isZero();
        }
    }

    private static PrintStream print(ByteArrayOutputStream to) {
        return new PrintStream(to, true, StandardCharsets.UTF_8);
    }
}
