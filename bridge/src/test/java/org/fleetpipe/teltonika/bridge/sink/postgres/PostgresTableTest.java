package org.fleetpipe.teltonika.bridge.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.junit.jupiter.api.Test;

/** The table's DDL as the README gives it, and the one statement a batch is written with. */
class PostgresTableTest {

    @Test
    void theReadmesDdl_isTheOneTheBridgeRuns() throws Exception {
        String readme = Files.readString(Path.of("README.md"));

        assertThat(readme).contains(new PostgresTable("telemetry").createSql());
    }

    @Test
    void aBatch_isOneStatement_withOneParameter_skippingWhatTheKeyAlreadyHolds() {
        String sql = new PostgresTable("fleet.positions").insertSql();

        assertThat(sql).startsWith("INSERT INTO fleet.positions (imei, ts, record_key, rx,")
                .contains("FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS batch(r, n)")
                .endsWith("ON CONFLICT (imei, ts, record_key) DO NOTHING");
        assertThat(sql.chars().filter(c -> c == '?').count()).isEqualTo(1);
    }

    @Test
    void theBatchsJson_isOneArrayOfTheRecordsInTheirOrder() {
        List<OutboundRecord> batch = List.of(
                new OutboundRecord("1-0", "352093081452251", "{\"a\":1}".getBytes(StandardCharsets.UTF_8)),
                new OutboundRecord("1-1", "352093081452251", "{\"b\":\"é\"}".getBytes(StandardCharsets.UTF_8)));

        assertThat(PostgresTable.jsonArray(batch)).isEqualTo("[{\"a\":1},{\"b\":\"é\"}]");
    }
}
