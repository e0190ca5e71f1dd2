package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordPayloadTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final RecordPayload payload = new RecordPayload(IoDictionary.empty());

    static Map<String, String> entry() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("schema", "2");
        fields.put("imei", "352093081452251");
        fields.put("codec", "8E");
        fields.put("ts", "1560161086000");
        fields.put("rx", "1795502830415");
        fields.put("priority", "1");
        fields.put("lat", "54.6872383");
        fields.put("lon", "-25.28");
        fields.put("alt", "-12");
        fields.put("angle", "270");
        fields.put("sat", "9");
        fields.put("speed", "54");
        fields.put("event", "239");
        fields.put("io", "{\"21\":3,\"66\":24079,\"78\":18446744073709551615,\"385\":\"0a1b\"}");
        fields.put("valid", "1");
        fields.put("instance", "ingest-7f9c-12");
        return fields;
    }

    @Test
    void entry_becomesTypedJson_numbersAsNumbers_ioAsObject() throws Exception {
        JsonNode json = MAPPER.readTree(payload.toJson("1795502830415-3", entry(), null));

        assertThat(json.get("id").asText()).isEqualTo("1795502830415-3");
        assertThat(json.get("schema").intValue()).isEqualTo(2);
        assertThat(json.get("imei").isTextual()).isTrue();
        assertThat(json.get("ts").longValue()).isEqualTo(1560161086000L);
        assertThat(json.get("lat").decimalValue()).isEqualByComparingTo("54.6872383");
        assertThat(json.get("lon").decimalValue()).isEqualByComparingTo("-25.28");
        assertThat(json.get("alt").intValue()).isEqualTo(-12);
        assertThat(json.get("valid").intValue()).isEqualTo(1);
        assertThat(json.get("io").get("66").intValue()).isEqualTo(24079);
        assertThat(json.get("io").get("385").asText()).isEqualTo("0a1b");
        assertThat(json.has("gen")).isFalse();
        assertThat(json.has("model")).isFalse();
    }

    @Test
    void eightByteValueAbove2To53_keepsEveryDigit() throws Exception {
        String text = new String(payload.toJson("1-0", entry(), null), java.nio.charset.StandardCharsets.UTF_8);

        assertThat(text).contains("\"78\":18446744073709551615");
        assertThat(MAPPER.readTree(text).get("io").get("78").bigIntegerValue())
                .isEqualTo(new BigInteger("18446744073709551615"));
    }

    @Test
    void schemaOne_hasNoValid() throws Exception {
        Map<String, String> fields = entry();
        fields.put("schema", "1");
        fields.remove("valid");

        JsonNode json = MAPPER.readTree(payload.toJson("1-0", fields, null));

        assertThat(json.get("schema").intValue()).isEqualTo(1);
        assertThat(json.has("valid")).isFalse();
    }

    @Test
    void malformedEntries_areRefusedWithTheReason() {
        Map<String, String> noImei = entry();
        noImei.remove("imei");
        Map<String, String> badNumber = entry();
        badNumber.put("speed", "1e9");
        Map<String, String> badIo = entry();
        badIo.put("io", "{\"1\":2}{");
        Map<String, String> futureSchema = entry();
        futureSchema.put("schema", "3");

        assertThatThrownBy(() -> payload.toJson("1-0", noImei, null)).hasMessage("missing field imei");
        assertThatThrownBy(() -> payload.toJson("1-0", badNumber, null)).hasMessageContaining("speed is not a number");
        assertThatThrownBy(() -> payload.toJson("1-0", badIo, null)).isInstanceOf(MalformedEntryException.class);
        assertThatThrownBy(() -> payload.toJson("1-0", futureSchema, null)).hasMessageContaining("unknown schema");
    }
}
