package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TelemetryKeysTest {

    @Test
    void theContractsKeys_withTheNamespaceInFront() {
        TelemetryKeys keys = new TelemetryKeys("fleet-a:");

        assertThat(keys.telemetry()).isEqualTo("fleet-a:telemetry");
        assertThat(keys.partitions()).isEqualTo("fleet-a:telemetry:partitions");
        assertThat(keys.deviceModels()).isEqualTo("fleet-a:devices:models");
        assertThat(keys.layout(2).streams()).containsExactly("fleet-a:telemetry:{0}", "fleet-a:telemetry:{1}");
        assertThat(new TelemetryKeys(null).deviceModels()).isEqualTo("devices:models");
    }

    @Test
    void aStreamsNamespace_isWhatStandsBeforeTelemetry() {
        assertThat(TelemetryKeys.ofStream("{fleet}:telemetry").deviceModels()).isEqualTo("{fleet}:devices:models");
        assertThat(TelemetryKeys.ofStream("telemetry").deviceModels()).isEqualTo("devices:models");
        assertThat(TelemetryKeys.ofStream("records").namespace()).as("a stream named otherwise").isEmpty();
    }

    @Test
    void anEntrysFields_inTheOrderTheServersWriteThem() {
        assertThat(EntryField.written(true)).extracting(EntryField::key).containsExactly("imei", "codec", "ts", "rx",
                "priority", "lat", "lon", "alt", "angle", "sat", "speed", "event", "gen", "io", "valid", "instance",
                "schema");
        assertThat(EntryField.written(false)).doesNotContain(EntryField.GEN).hasSize(16);
        assertThat(EntryField.of("sat")).isEqualTo(EntryField.SAT);
        assertThat(EntryField.of("model")).isNull();
    }
}
