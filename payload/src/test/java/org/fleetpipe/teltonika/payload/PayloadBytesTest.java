package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The payload written from an entry's bytes (issue 41 item 4) is, byte for byte, what the
 * map-based writer before it wrote: {@code payloads-before-issue-41.jsonl} holds entries (the
 * servers' own, ones with known models, odd io, non-ASCII text) with the payload the old writer
 * gave each.
 */
class PayloadBytesTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final RecordPayload payload = new RecordPayload(IoDictionary.load());

    record Case(String id, String model, Map<String, String> fields, String json) {}

    static List<Case> cases() throws Exception {
        List<Case> cases = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(
                PayloadBytesTest.class.getResourceAsStream("payloads-before-issue-41.jsonl"), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                JsonNode node = MAPPER.readTree(line);
                Map<String, String> fields = new LinkedHashMap<>();
                node.get("fields").fields().forEachRemaining(f -> fields.put(f.getKey(), f.getValue().asText()));
                cases.add(new Case(node.get("id").asText(), node.has("model") ? node.get("model").asText() : null,
                        fields, node.get("json").asText()));
            }
        }
        return cases;
    }

    @Test
    void everyEntry_givesThePayloadTheOldWriterGave_twiceOnOneThread() throws Exception {
        List<Case> cases = cases();
        assertThat(cases).hasSizeGreaterThan(40);
        for (int round = 0; round < 2; round++) {
            for (Case c : cases) {
                assertThat(new String(payload.toJson(c.id(), EntryBody.of(c.fields()), c.model()), StandardCharsets.UTF_8))
                        .as(c.id() + " " + c.fields().get("io") + " " + c.model()).isEqualTo(c.json());
                assertThat(new String(payload.toJson(c.id(), c.fields(), c.model()), StandardCharsets.UTF_8))
                        .isEqualTo(c.json());
            }
        }
    }

    @Test
    void aRefusedEntry_leavesTheNextOneWhole() throws Exception {
        Case good = cases().get(1);
        Map<String, String> halfWritten = new LinkedHashMap<>(good.fields());
        // Refused in the middle of the io, the record's object already open.
        halfWritten.put("io", "{\"66\":1,\"x\":");

        assertThatThrownBy(() -> payload.toJson("1-0", halfWritten, good.model()))
                .isInstanceOf(MalformedEntryException.class);
        assertThat(new String(payload.toJson(good.id(), good.fields(), good.model()), StandardCharsets.UTF_8))
                .isEqualTo(good.json());
    }

    @Test
    void everyRefusal_keepsItsReason() {
        assertThat(refusal("schema", null)).isEqualTo("missing field schema");
        assertThat(refusal("schema", "12")).isEqualTo("unknown schema 12");
        assertThat(refusal("imei", "35209308145225")).isEqualTo("imei is not 15 digits");
        assertThat(refusal("imei", "35209308145225x")).isEqualTo("imei is not 15 digits");
        assertThat(refusal("codec", null)).isEqualTo("missing field codec");
        assertThat(refusal("ts", null)).isEqualTo("missing field ts");
        assertThat(refusal("ts", "01")).isEqualTo("ts is not a number: 01");
        assertThat(refusal("alt", "-")).isEqualTo("alt is not a number: -");
        assertThat(refusal("rx", "12345678901234567890")).isEqualTo("rx is not a number: 12345678901234567890");
        assertThat(refusal("gen", "x")).isEqualTo("gen is not a number: x");
        assertThat(refusal("speed", "1e9")).isEqualTo("speed is not a number: 1e9");
        assertThat(refusal("lat", "54.")).isEqualTo("lat is not a number: 54.");
        assertThat(refusal("lat", "12345.1")).isEqualTo("lat is not a number: 12345.1");
        assertThat(refusal("lon", "1.1234567890")).isEqualTo("lon is not a number: 1.1234567890");
        assertThat(refusal("lon", "05.1")).isEqualTo("lon is not a number: 05.1");
        assertThat(refusal("lon", "é")).isEqualTo("lon is not a number: é");
        assertThat(refusal("valid", "yes-and-a-very-long-value-indeed"))
                .isEqualTo("valid is not a number: yes-and-a-very-long-valu...");
        assertThat(refusal("io", null)).isEqualTo("missing field io");
        assertThat(refusal("io", "[1]")).isEqualTo("io is not a JSON object");
        assertThat(refusal("io", "{\"1\":2}{")).isEqualTo("io has text after its object");
        assertThat(refusal("io", "{\"1\":{\"2\":[3]}}")).startsWith("io is not valid JSON: ");
        assertThat(refusal("io", "{\"1\":")).startsWith("io is not valid JSON: ");
        assertThat(refusal("io", "{\"1\":\"" + "é".repeat(IoCopy.MAX_IO_CHARS) + "\"}"))
                .isEqualTo("io longer than 65536 characters");
        assertThat(refusal("io", "{\"1\":\"" + "a".repeat(IoCopy.MAX_IO_CHARS) + "\"}"))
                .isEqualTo("io longer than 65536 characters");
    }

    @Test
    void bodyFromAReply_findsEachFieldAndKeepsTheUnknownOnes() {
        EntryBody.Builder builder = new EntryBody.Builder();
        field(builder, "imei", "352093081452251");
        field(builder, "x-extra", "é");
        field(builder, "rx", "1795502830415");
        field(builder, "imei", "352093081452252");
        field(builder, "ts", "9223372036854775807");
        field(builder, "alt", "-12");
        EntryBody body = builder.build();

        assertThat(body.isEmpty()).isFalse();
        assertThat(body.text(EntryField.IMEI)).as("the last of a name given twice, as a map").isEqualTo("352093081452252");
        assertThat(body.number(EntryField.RX, -1)).isEqualTo(1795502830415L);
        assertThat(body.number(EntryField.ALT, 0)).isEqualTo(-12);
        assertThat(body.number(EntryField.TS, -1)).as("more digits than it reads").isEqualTo(-1);
        assertThat(body.number(EntryField.INSTANCE, -1)).as("absent").isEqualTo(-1);
        assertThat(body.text(EntryField.SPEED)).isNull();
        assertThat(body.toMap()).containsExactly(Map.entry("imei", "352093081452252"), Map.entry("x-extra", "é"),
                Map.entry("rx", "1795502830415"), Map.entry("ts", "9223372036854775807"), Map.entry("alt", "-12"));
        assertThat(builder.build()).as("nothing given since: a trimmed entry").isSameAs(EntryBody.EMPTY);
        assertThat(EntryBody.EMPTY.isEmpty()).isTrue();
        assertThat(EntryBody.EMPTY.toMap()).isEmpty();
    }

    private static void field(EntryBody.Builder builder, String name, String value) {
        builder.name(java.nio.ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)));
        builder.value(java.nio.ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
    }

    private String refusal(String field, String value) {
        Map<String, String> fields = RecordPayloadTest.entry();
        fields.put("gen", "1");
        if (value == null) {
            fields.remove(field);
        } else {
            fields.put(field, value);
        }
        try {
            payload.toJson("1-0", EntryBody.of(fields), "FMB920");
            throw new AssertionError(field + "=" + value + " was not refused");
        } catch (MalformedEntryException e) {
            return e.getMessage();
        }
    }
}
