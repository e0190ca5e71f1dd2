package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TelemetryLayoutTest {

    @Test
    void onePartition_isThePlainStream() {
        TelemetryLayout layout = new TelemetryLayout("telemetry", 1);

        assertThat(layout.streams()).containsExactly("telemetry");
        assertThat(layout.streamOf("352093081452251")).isEqualTo("telemetry");
    }

    @Test
    void partitions_areHashTaggedStreams_namespaceInFront() {
        TelemetryLayout layout = new TelemetryLayout("fleet-a:telemetry", 4);

        assertThat(layout.streams()).containsExactly("fleet-a:telemetry:{0}", "fleet-a:telemetry:{1}",
                "fleet-a:telemetry:{2}", "fleet-a:telemetry:{3}");
        assertThat(TelemetryLayout.partitionsKey("fleet-a:telemetry")).isEqualTo("fleet-a:telemetry:partitions");
    }

    @Test
    void aDevicesPartition_isCrc32OfItsImei_unsignedModP() {
        // CRC32("352093081452251") = 0x889657BD = 2291554237: negative as a Java int, so unsigned matters.
        assertThat(new TelemetryLayout("telemetry", 16).partitionOf("352093081452251")).isEqualTo(13);
        assertThat(new TelemetryLayout("telemetry", 1000).partitionOf("352093081452251")).isEqualTo(237);
        assertThat(new TelemetryLayout("telemetry", 7).streamOf("352093081452251")).isEqualTo("telemetry:{0}");
    }

    @Test
    void theLayoutKey_absentIsOne_garbageIsRefused() {
        assertThat(TelemetryLayout.parsePartitions(null)).isEqualTo(1);
        assertThat(TelemetryLayout.parsePartitions("16")).isEqualTo(16);
        assertThatThrownBy(() -> TelemetryLayout.parsePartitions("0")).hasMessageContaining("1..1024");
        assertThatThrownBy(() -> TelemetryLayout.parsePartitions("x")).hasMessageContaining("'x'");
        assertThatThrownBy(() -> new TelemetryLayout("telemetry", 1025)).hasMessageContaining("1..1024");
    }

    @Test
    void aNamespacesHashTagIsLeftOutOfThePartitionStreams_asTheServersWriteThem() {
        TelemetryLayout layout = new TelemetryLayout("{fleet}:telemetry", 8);
        assertThat(layout.stream(3)).isEqualTo("fleet:telemetry:{3}");
        assertThat(TelemetryLayout.partitionsKey("{fleet}:telemetry")).isEqualTo("{fleet}:telemetry:partitions");
        assertThat(new TelemetryLayout("{fleet}:telemetry", 1).stream(0)).isEqualTo("{fleet}:telemetry");
    }

    @Test
    void anotherKeyOfAPartition_isSpelledAsItsStream() {
        TelemetryLayout layout = new TelemetryLayout("{fleet}:telemetry", 16);

        assertThat(layout.partitionKey("{fleet}:dedup:recent", 3)).isEqualTo("fleet:dedup:recent:{3}");
        assertThat(new TelemetryLayout("{fleet}:telemetry", 1).partitionKey("{fleet}:dedup:recent", 0))
                .isEqualTo("{fleet}:dedup:recent");
        assertThatThrownBy(() -> layout.partitionKey("x", 16)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
