package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code valid} as a consumer reads it: stored in schema 2, worked out for schema 1 by TELEMETRY.md's rule. */
class EntryValidityTest {

    private static final long RX = 1_795_502_830_415L;

    private static Map<String, String> schema1(long ts, String sat, String lat, String lon) {
        Map<String, String> e = new HashMap<>(Map.of("schema", "1", "imei", "352093081452251", "ts", Long.toString(ts),
                "rx", Long.toString(RX), "sat", sat, "lat", lat, "lon", lon));
        return e;
    }

    @Test
    void schema2_theStoredValueAsItIs() {
        Map<String, String> noFixButStoredValid = schema1(RX, "0", "0", "0");
        noFixButStoredValid.put("schema", "2");
        noFixButStoredValid.put("valid", "1");

        assertThat(EntryValidity.of(noFixButStoredValid)).as("the server's word, not ours").isEqualTo("1");
        noFixButStoredValid.put("valid", "0");
        assertThat(EntryValidity.of(noFixButStoredValid)).isEqualTo("0");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "a fix and a plausible clock, 1795502829000, 9, 54.6872383, 25.28, 1",
            "no satellites at 0/0, 1795502829000, 0, 0, 0, 0",
            "no satellites at 0.0/0.0, 1795502829000, 0, 0.0, 0.0, 0",
            "no satellites but the last known position, 1795502829000, 0, 54.6872383, 25.28, 1",
            "latitude out of range, 1795502829000, 9, 90.0000001, 25.28, 0",
            "longitude out of range, 1795502829000, 9, 54.6872383, -180.0000001, 0",
            "10 minutes ahead, 1795503430415, 9, 54.6872383, 25.28, 1",
            "10 minutes and 1 ms ahead, 1795503430416, 9, 54.6872383, 25.28, 0",
            "before 2010, 1262303999999, 9, 54.6872383, 25.28, 0",
            "2010 on, 1262304000000, 9, 54.6872383, 25.28, 1"})
    void schema1_theSameRuleWorkedOut(String why, long ts, String sat, String lat, String lon, String valid) {
        assertThat(EntryValidity.of(schema1(ts, sat, lat, lon))).isEqualTo(valid);
    }

    @Test
    void schema1_withoutTheFieldsTheRuleNeeds_unknown() {
        assertThat(EntryValidity.of(Map.of("imei", "352093081452251", "ts", "1"))).isNull();
        assertThat(EntryValidity.of(schema1(RX, "many", "0", "0"))).isNull();
    }
}
