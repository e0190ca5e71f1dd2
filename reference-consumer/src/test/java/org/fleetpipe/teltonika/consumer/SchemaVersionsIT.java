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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * A stream holding entries of schema 1 (written before {@code valid}, as during a rolling upgrade)
 * and schema 2: the program reads both, prints {@code valid} as the stream has it (the bridge's
 * payload: none on a schema 1 line) and counts the invalid ones of both schemas.
 */
@WithRedis
class SchemaVersionsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Map<String, String> entry(String schema, String ts, String sat, String lat, String lon,
                                             String valid) {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("imei", "352093081452251");
        e.put("codec", "8");
        e.put("ts", ts);
        e.put("rx", "1795502830415");
        e.put("priority", "0");
        e.put("lat", lat);
        e.put("lon", lon);
        e.put("alt", "120");
        e.put("angle", "90");
        e.put("sat", sat);
        e.put("speed", "40");
        e.put("event", "0");
        e.put("io", "{\"21\":3}");
        if (valid != null) {
            e.put("valid", valid);
        }
        e.put("instance", "ingest-1");
        e.put("schema", schema);
        return e;
    }

    @Test
    void schema1And2Entries_validAsTheStreamHasIt_andTheInvalidOfBothAreCounted(RedisFixture redis) throws Exception {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> commands = connection.sync();
            commands.xadd("telemetry", entry("1", "1795502829000", "9", "54.6872383", "25.28", null));
            commands.xadd("telemetry", entry("1", "1795502829000", "0", "0", "0", null));
            commands.xadd("telemetry", entry("2", "1795502829000", "9", "54.6872383", "25.28", "1"));
            commands.xadd("telemetry", entry("2", "1795506430415", "9", "54.6872383", "25.28", "0"));

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = ReferenceConsumerMain.run(new String[] {"--redis-url", redis.uri(), "--group", "versions",
                    "--until-idle", "1s", "--block", "200ms", "--output", "jsonl"}, print(out), print(err));

            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
            List<String> valid = new ArrayList<>();
            List<String> schema = new ArrayList<>();
            for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
                JsonNode e = JSON.readTree(line);
                valid.add(e.has("valid") ? e.get("valid").asText() : "none");
                schema.add(e.get("schema").asText());
                assertThat(e.get("schema").isInt()).as("numbers as numbers").isTrue();
                assertThat(e.get("io").isObject()).isTrue();
            }
            assertThat(schema).containsExactly("1", "1", "2", "2");
            assertThat(valid).containsExactly("none", "none", "1", "0");
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("done: group=versions", "read=4 invalid=2 ");
        }
    }

    private static PrintStream print(ByteArrayOutputStream to) {
        return new PrintStream(to, true, StandardCharsets.UTF_8);
    }
}
