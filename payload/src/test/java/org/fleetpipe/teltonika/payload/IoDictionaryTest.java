package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IoDictionaryTest {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private final RecordPayload payload = new RecordPayload(IoDictionary.load());

    private JsonNode named(String model, String io) throws Exception {
        Map<String, String> fields = RecordPayloadTest.entry();
        fields.put("io", io);
        return MAPPER.readTree(payload.toJson("1-0", fields, model));
    }

    private String text(String model, String io) {
        Map<String, String> fields = RecordPayloadTest.entry();
        fields.put("io", io);
        return new String(payload.toJson("1-0", fields, model), StandardCharsets.UTF_8);
    }

    @Test
    void externalVoltage_onFmb920_isVoltsWithItsUnit() throws Exception {
        JsonNode json = named("FMB920", "{\"66\":12500,\"21\":3}");

        assertThat(json.get("model").asText()).isEqualTo("FMB920");
        assertThat(json.get("io_named").get("external_voltage").decimalValue()).isEqualByComparingTo("12.5");
        assertThat(json.get("io_named").get("gsm_signal").isIntegralNumber()).isTrue();
        assertThat(json.get("io_named").get("gsm_signal").intValue()).isEqualTo(3);
        assertThat(json.get("units").get("external_voltage").asText()).isEqualTo("V");
        assertThat(json.get("units").has("gsm_signal")).as("no unit, no entry").isFalse();
        assertThat(json.get("io").get("66").intValue()).as("io keeps the raw value").isEqualTo(12500);
    }

    @Test
    void multipliedValues_areExactPlainDecimals_andIntegersStayIntegers() {
        assertThat(text("FMB920", "{\"66\":12345}")).contains("\"external_voltage\":12.345");
        assertThat(text("FMB920", "{\"66\":12000}")).contains("\"external_voltage\":12}");
        // 0.1 * 3 in binary floating point is 0.30000000000000004.
        assertThat(text("FMB920", "{\"72\":3}")).contains("\"dallas_temperature_1\":0.3");
        assertThat(text("FMB920", "{\"16\":1000000}")).contains("\"total_odometer\":1000000}");
    }

    @Test
    void lowercaseModel_isTheSameModel() throws Exception {
        JsonNode json = named("fmb920", "{\"66\":12500}");

        assertThat(json.get("model").asText()).as("the model as stored").isEqualTo("fmb920");
        assertThat(json.get("io_named").get("external_voltage").decimalValue()).isEqualByComparingTo("12.5");
    }

    @Test
    void oneId_meansAnotherThingOnAnotherModel() throws Exception {
        JsonNode fmb920 = named("FMB920", "{\"25\":2150,\"66\":12500}");
        JsonNode fmb640 = named("FMB640", "{\"25\":85,\"66\":12500}");

        assertThat(fmb920.get("io_named").get("ble_temperature_1").decimalValue()).isEqualByComparingTo("21.5");
        assertThat(fmb920.get("units").get("ble_temperature_1").asText()).isEqualTo("°C");
        assertThat(fmb640.get("io_named").has("ble_temperature_1")).isFalse();
        assertThat(fmb640.get("io_named").get("engine_temperature").intValue()).isEqualTo(85);
        // The FMB640 table says mV with a multiplier of 0: read as the raw millivolts.
        assertThat(fmb640.get("io_named").get("external_voltage").intValue()).isEqualTo(12500);
        assertThat(fmb640.get("units").get("external_voltage").asText()).isEqualTo("mV");
    }

    @Test
    void signedElements_areTwosComplementOfTheirBytes() throws Exception {
        // axis_x: 2 bytes signed on FMB920; the stream has the unsigned 0xFFFE.
        JsonNode json = named("FMB920", "{\"17\":65534,\"25\":65036,\"18\":12}");

        assertThat(json.get("io_named").get("axis_x").intValue()).isEqualTo(-2);
        assertThat(json.get("io_named").get("ble_temperature_1").decimalValue()).isEqualByComparingTo("-5");
        assertThat(json.get("io_named").get("axis_y").intValue()).isEqualTo(12);
        assertThat(json.get("units").get("axis_x").asText()).isEqualTo("mG");
    }

    @Test
    void signedValueWiderThanItsBytes_isLeftOutOfIoNamed() throws Exception {
        JsonNode json = named("FMB920", "{\"17\":65536}");

        assertThat(json.get("io_named").has("axis_x")).isFalse();
        assertThat(json.get("io").get("17").intValue()).isEqualTo(65536);
    }

    @Test
    void eightByteValues_keepEveryDigit_andHexElementsAreHexDigits() {
        String text = text("FMB920", "{\"78\":18446744073709551615,\"11\":8937204016201234567,\"451\":255}");

        assertThat(text).contains("\"ibutton\":18446744073709551615");
        assertThat(text).contains("\"iccid1\":8937204016201234567");
        assertThat(text).contains("\"ble_rfid_1\":\"00000000000000ff\"");
    }

    @Test
    void variableLengthValues_passThroughAsStrings_withoutUnit() throws Exception {
        JsonNode json = named("FMB920", "{\"385\":\"0a1b\"}");

        assertThat(json.get("io_named").get("beacon").asText()).isEqualTo("0a1b");
        assertThat(json.get("units").has("beacon")).isFalse();
    }

    @Test
    void unknownIds_stayInIoOnly() throws Exception {
        JsonNode json = named("FMB920", "{\"66\":12500,\"64999\":7}");

        assertThat(json.get("io_named").size()).isEqualTo(1);
        assertThat(json.get("io").get("64999").intValue()).isEqualTo(7);
    }

    @Test
    void collidingNames_theLowestIdKeepsTheName_theOthersGetTheirId() throws Exception {
        JsonNode json = named("FMB920", "{\"67\":4100,\"168\":4}");

        assertThat(json.get("io_named").get("battery_voltage").decimalValue()).isEqualByComparingTo("4.1");
        assertThat(json.get("io_named").get("battery_voltage_168").intValue()).isEqualTo(4);
    }

    @Test
    void unknownModel_hasTheModelButNoNames() throws Exception {
        JsonNode json = named("XYZ123", "{\"66\":12500}");

        assertThat(json.get("model").asText()).isEqualTo("XYZ123");
        assertThat(json.has("io_named")).isFalse();
        assertThat(json.has("units")).isFalse();
        assertThat(IoDictionary.load().knows("XYZ123")).isFalse();
        assertThat(IoDictionary.load().knows("fmb920")).isTrue();
    }

    @Test
    void bundledDictionary_isReadOnce() {
        assertThat(IoDictionary.load()).isSameAs(IoDictionary.load());
        assertThat(IoDictionary.load().models()).contains("FMB920", "FMB640", "FMC650", "TMT250").hasSize(75);
    }

    @Test
    void emptyDictionary_knowsNoModel() throws Exception {
        Map<String, String> fields = RecordPayloadTest.entry();
        JsonNode json = MAPPER.readTree(new RecordPayload(IoDictionary.empty()).toJson("1-0", fields, "FMB920"));

        assertThat(json.has("io_named")).isFalse();
        assertThat(json.get("io").get("78").bigIntegerValue()).isEqualTo(new BigInteger("18446744073709551615"));
    }
}
